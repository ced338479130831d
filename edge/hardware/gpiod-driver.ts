import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../shared/log.js';
import { DeviceHealth, type ReopenDelay } from './device-health.js';
import {
  type DeviceStatus,
  droppedLines,
  errorText,
  type GateDriver,
  lineKey,
  RelayFault,
  type RelayLine,
} from './gate-driver.js';
import { checkLine, type GpioChip, parseGpiodetect, pickChip } from './gpio-chips.js';
import {
  cliFailure,
  type GpiosetVersion,
  gpiodetectCommand,
  holdArgs,
  isBanner,
  type LineRequest,
  pulseArgs,
  runGpiodetect,
  setAndExitArgs,
} from './gpioset-cli.js';

export interface GpiodDriverOptions {
  /** The chip: gpiochipN, a number, a /dev path, or a label (looked up with gpiodetect). */
  device?: string | undefined;
  /** The gpioset executable (a name on PATH or a path). */
  command: string;
  /** The installed gpioset's major version, detected once per hub. */
  version: () => Promise<GpiosetVersion>;
  reopenDelayMs?: ReopenDelay | undefined;
  log?: Logger | undefined;
  onCommand?: ((line: RelayLine, energised: boolean) => void) | undefined;
}

/** v1 prints nothing once it holds a line; a request that fails exits well within this time. */
const V1_SETTLE_MS = 50;
const KILL_GRACE_MS = 2_000;
/** How long de-energising waits for a pulse process to end on its own before stopping it. */
const PULSE_END_GRACE_MS = 250;
const STDERR_LIMIT = 2_000;

interface Running {
  proc: ChildProcess;
  kind: 'hold' | 'pulse';
  /** We asked it to stop; its exit is expected. */
  stopping: boolean;
  stdout: string;
  stderr: string;
  exited: Promise<void>;
}

/**
 * Relays on GPIO lines through libgpiod's `gpioset` (boxes without sysfs GPIO). A line is held only
 * while a gpioset process runs, so between pulses a holder process keeps it de-energised; a pulse
 * replaces the holder with a process that energises for pulseMs and exits by itself (v2 also drives
 * the line back to inactive first), then a new holder takes the line at its de-energised level.
 */
export class GpiodRelayDriver implements GateDriver {
  private readonly health: DeviceHealth;
  private readonly running = new Map<string, Running>();
  private lines: RelayLine[] = [];
  private chip: GpioChip | undefined;
  private version: GpiosetVersion | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: GpiodDriverOptions) {
    this.health = new DeviceHealth(
      () => this.name,
      () => this.reconnect(true),
      options.reopenDelayMs,
      options.log,
    );
  }

  get name(): string {
    const lines = this.lines.map((l) => l.channel).join(', ') || '?';
    return `GPIO line ${lines} on ${this.chip?.name ?? this.options.device ?? 'the header chip'} (gpioset)`;
  }

  async open(lines: RelayLine[]): Promise<void> {
    const dropped = droppedLines(this.lines, lines);
    this.lines = lines;
    for (const line of dropped) await this.release(line);
    if (this.connecting) await this.connecting;
    if (this.health.state !== 'fault') await this.reconnect(false);
  }

  async set(line: RelayLine, energised: boolean): Promise<void> {
    if (this.closed) throw new RelayFault(`${this.name} is closed (the edge is shutting down).`, false);
    if (this.health.state !== 'ok') throw this.health.unavailable();
    this.options.onCommand?.(line, energised);
    const previous = this.running.get(lineKey(line));
    // A pulse process ends by itself after pulseMs (v2 de-energising first); let it, rather than
    // kill it a moment early, unless the hold was cut short.
    if (!energised && previous?.kind === 'pulse')
      await Promise.race([previous.exited, sleep(PULSE_END_GRACE_MS)]);
    // A v1 pulse process reports a failed request only by exiting non-zero; look before replacing it.
    const pulseFailed =
      !energised && previous?.kind === 'pulse' && previous.proc.exitCode ? previous : undefined;
    try {
      await this.replace(line, energised ? 'pulse' : 'hold');
    } catch (err) {
      this.health.fault(errorText(err));
      throw this.health.unavailable();
    }
    if (pulseFailed) {
      this.health.fault(
        `gpioset could not energise line ${line.channel} (${lastLine(pulseFailed.stderr) || describeExit(pulseFailed.proc)})`,
      );
      throw this.health.unavailable();
    }
  }

  status(): DeviceStatus {
    return { state: this.health.state, error: this.health.error };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.health.close();
    if (this.connecting) await this.connecting;
    for (const line of this.lines) await this.release(line);
  }

  private reconnect(restartAll: boolean): Promise<void> {
    this.connecting ??= this.connect(restartAll).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /**
   * Learns the gpioset version and the chip, then starts a de-energised holder for each new line, or
   * after a fault for every line.
   */
  private async connect(restartAll: boolean): Promise<void> {
    if (this.closed) return;
    try {
      this.version ??= await this.options.version();
      this.chip ??= await this.resolveChip();
      for (const line of this.lines) if (this.chip.ngpio > 0) checkLine(this.chip, line.channel);
      for (const line of this.lines) {
        if (restartAll || !this.running.has(lineKey(line))) await this.replace(line, 'hold');
      }
    } catch (err) {
      return this.health.fault(errorText(err));
    }
    this.health.ok();
  }

  /** gpioset takes a chip by name, number or path; a label (or no device) is looked up with gpiodetect. */
  private async resolveChip(): Promise<GpioChip> {
    const device = this.options.device;
    if (device && /^(gpiochip\d+|\d+|\/dev\/\S+)$/.test(device))
      return { name: device, label: device, ngpio: 0 };
    const listing = await runGpiodetect(gpiodetectCommand(this.options.command));
    return pickChip(parseGpiodetect(listing), device);
  }

  /** Stops the line's current gpioset and starts the next one, resolving once it holds the line. */
  private async replace(line: RelayLine, kind: 'hold' | 'pulse'): Promise<void> {
    const previous = this.running.get(lineKey(line));
    if (previous) await stop(previous);
    if (this.closed && kind === 'pulse') throw new Error('the edge is shutting down');
    const req = this.request(line);
    const version = this.version ?? 1;
    const args = kind === 'hold' ? holdArgs(version, req, 0) : pulseArgs(version, req, line.pulseMs);
    const running = this.spawn(args, kind);
    this.running.set(lineKey(line), running);
    running.proc.once('exit', () => {
      if (kind !== 'hold' || running.stopping || this.closed || this.running.get(lineKey(line)) !== running)
        return;
      this.health.fault(
        `gpioset holding line ${line.channel} exited (${lastLine(running.stderr) || describeExit(running.proc)})`,
      );
    });
    await this.started(running, version, kind === 'hold');
  }

  /** De-energises a line for good: stop its process and set it inactive with a process that exits. */
  private async release(line: RelayLine): Promise<void> {
    const current = this.running.get(lineKey(line));
    this.running.delete(lineKey(line));
    if (current) await stop(current);
    if (!this.version || !this.chip) return;
    const final = this.spawn(setAndExitArgs(this.version, this.request(line), 0), 'hold');
    final.stopping = true;
    await final.exited;
    if (failed(final)) {
      this.options.log?.warn(
        { line: line.channel, error: lastLine(final.stderr) },
        'gpioset could not de-energise the line on release',
      );
    }
  }

  private request(line: RelayLine): LineRequest {
    return { chip: this.chip?.name ?? '0', line: line.channel, activeLow: line.activeLow };
  }

  private spawn(args: string[], kind: Running['kind']): Running {
    const proc = spawn(this.options.command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    trackChild(proc);
    const running: Running = {
      proc,
      kind,
      stopping: false,
      stdout: '',
      stderr: '',
      exited: new Promise((resolve) => {
        proc.once('exit', () => resolve());
        proc.once('error', () => resolve());
      }),
    };
    proc.stdout?.on('data', (chunk: Buffer) => {
      running.stdout = (running.stdout + chunk.toString()).slice(-STDERR_LIMIT);
    });
    proc.stderr?.on('data', (chunk: Buffer) => {
      running.stderr = (running.stderr + chunk.toString()).slice(-STDERR_LIMIT);
    });
    return running;
  }

  /**
   * Resolves once the process holds the line: v2 says so with its banner; v1 says nothing, so a
   * holder counts as started when it is still running after a short settle time (a v1 pulse at
   * once: it ends by itself, and set(off) checks how it ended).
   */
  private started(running: Running, version: GpiosetVersion, settle: boolean): Promise<void> {
    const { proc } = running;
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (err?: Error) => {
        clearTimeout(timer);
        proc.stdout?.off('data', onData);
        proc.off('exit', onExit);
        proc.off('error', onError);
        proc.off('spawn', onSpawn);
        if (err) reject(err);
        else resolve();
      };
      const onData = () => {
        if (version === 2 && isBanner(running.stdout)) done();
      };
      const onExit = () => {
        if (running.kind === 'pulse' && !failed(running)) return done();
        done(
          new Error(
            `gpioset ${proc.spawnargs.slice(1).join(' ')} failed (${lastLine(running.stderr) || describeExit(proc)})`,
          ),
        );
      };
      const onError = (err: Error) => done(new Error(cliFailure(this.options.command, err)));
      const onSpawn = () => {
        if (version === 2) return;
        if (settle) timer = setTimeout(() => done(), V1_SETTLE_MS);
        else done();
      };
      proc.stdout?.on('data', onData);
      proc.once('exit', onExit);
      proc.once('error', onError);
      proc.once('spawn', onSpawn);
      onData();
    });
  }
}

/** Asks a gpioset to let go of its line (SIGTERM; SIGKILL if it does not) and waits until it has. */
async function stop(running: Running): Promise<void> {
  running.stopping = true;
  const { proc } = running;
  if (proc.exitCode === null && proc.signalCode === null && proc.pid !== undefined) {
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), KILL_GRACE_MS);
    await running.exited;
    clearTimeout(timer);
  }
}

function failed(running: Running): boolean {
  const { proc } = running;
  return proc.exitCode !== null ? proc.exitCode !== 0 : proc.signalCode !== null && !running.stopping;
}

function describeExit(proc: ChildProcess): string {
  return proc.signalCode ? `killed by ${proc.signalCode}` : `exit code ${proc.exitCode}`;
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop()?.trim() ?? '';
}

/** gpioset processes must not outlive the edge holding a relay; stop them when the process exits. */
const children = new Set<ChildProcess>();
let exitHookInstalled = false;

function trackChild(proc: ChildProcess): void {
  children.add(proc);
  proc.once('exit', () => children.delete(proc));
  proc.once('error', () => children.delete(proc));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of children) child.kill('SIGTERM');
  });
}
