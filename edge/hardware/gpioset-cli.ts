import { execFile } from 'node:child_process';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * libgpiod's `gpioset` changed its command line completely between v1 and v2; this module knows both.
 * Values are logical (1 = relay energised): active-low wiring is passed as the active-low flag.
 *
 * v1: `gpioset [--mode=exit|signal|time] [--active-low] <chip> <line>=<value>`; the line is held
 *     while the process runs (signal: until SIGTERM; time: for --sec/--usec) and is undefined after.
 * v2: `gpioset [-c <chip>] [-l] [-t <period>,...] <line>=<value>`; by default it holds until killed;
 *     `-t 500ms,0` toggles the line after 500 ms and exits, so a pulse ends de-energised by itself.
 */
export type GpiosetVersion = 1 | 2;

/** Consumer name v2 shows in `gpioinfo`, so an operator sees who holds the line. */
export const GPIOSET_CONSUMER = 'yard-gate';

export interface LineRequest {
  chip: string;
  line: number;
  activeLow: boolean;
}

/**
 * Reads the major version from `gpioset --version`: v1 prints `gpioset (libgpiod) v1.6.3`, v2.0/2.1
 * `gpioset (libgpiod) v2.1`, later v2 `gpioset v2.2.1 (libgpiod v2.2.1)`.
 */
export function parseGpiosetVersion(output: string): GpiosetVersion {
  const match = /\bv(\d+)\.\d+/.exec(output);
  if (!match) throw new Error(`cannot tell the gpioset version from "${output.trim().split('\n')[0] ?? ''}"`);
  return Number(match[1]) >= 2 ? 2 : 1;
}

export async function detectGpiosetVersion(command: string): Promise<GpiosetVersion> {
  try {
    const { stdout } = await run(command, ['--version'], { timeout: 5_000 });
    return parseGpiosetVersion(stdout);
  } catch (err) {
    throw new Error(cliFailure(command, err));
  }
}

/** `gpiodetect` lives next to `gpioset` (same package). */
export function gpiodetectCommand(gpiosetCommand: string): string {
  return gpiosetCommand.includes('/') ? join(dirname(gpiosetCommand), 'gpiodetect') : 'gpiodetect';
}

export async function runGpiodetect(command: string): Promise<string> {
  try {
    return (await run(command, [], { timeout: 5_000 })).stdout;
  } catch (err) {
    throw new Error(cliFailure(command, err));
  }
}

/** Sets the line and keeps it until SIGTERM (the de-energised level between pulses). */
export function holdArgs(version: GpiosetVersion, req: LineRequest, value: 0 | 1): string[] {
  return version === 1
    ? ['--mode=signal', ...v1ActiveLow(req), req.chip, `${req.line}=${value}`]
    : ['--banner', ...v2Line(req), `${req.line}=${value}`];
}

/**
 * Energises for `ms` and exits by itself, so a relay cannot stay energised if the edge dies mid-pulse.
 * v2 also drives the line back to inactive before exiting; v1 leaves it to the next holder.
 */
export function pulseArgs(version: GpiosetVersion, req: LineRequest, ms: number): string[] {
  if (version === 1) {
    const sec = Math.floor(ms / 1000);
    const usec = Math.round((ms % 1000) * 1000);
    return ['--mode=time', `--sec=${sec}`, `--usec=${usec}`, ...v1ActiveLow(req), req.chip, `${req.line}=1`];
  }
  return ['--banner', ...v2Line(req), '-t', `${Math.round(ms)}ms,0`, `${req.line}=1`];
}

/** Sets the line and exits at once (on stop, after the last holder is gone). */
export function setAndExitArgs(version: GpiosetVersion, req: LineRequest, value: 0 | 1): string[] {
  return version === 1
    ? ['--mode=exit', ...v1ActiveLow(req), req.chip, `${req.line}=${value}`]
    : [...v2Line(req), '-t', '0', `${req.line}=${value}`];
}

/** The line is requested (v2 prints this banner once it holds the line). */
export function isBanner(stdout: string): boolean {
  return /Setting line/.test(stdout);
}

function v1ActiveLow(req: LineRequest): string[] {
  return req.activeLow ? ['--active-low'] : [];
}

function v2Line(req: LineRequest): string[] {
  return ['-C', GPIOSET_CONSUMER, '-c', req.chip, ...(req.activeLow ? ['-l'] : [])];
}

/** A failed CLI run, with the hint for a missing tool. */
export function cliFailure(command: string, err: unknown): string {
  const e = err as NodeJS.ErrnoException & { stderr?: string };
  if (e.code === 'ENOENT') return `${basename(command)} is not installed (install the gpiod package)`;
  const stderr = e.stderr?.trim();
  return `${basename(command)} failed (${stderr || e.message})`;
}
