/**
 * The gpioset processes that hold relay lines: starting one, knowing when it holds its line or how it
 * failed, stopping it, and making sure none outlives the edge.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cliFailure, type GpiosetVersion, isBanner } from './gpioset-cli.js';

/** v1 prints nothing once it holds a line; a request that fails exits well within this time. */
const V1_SETTLE_MS = 50;
const KILL_GRACE_MS = 2_000;
const STDERR_LIMIT = 2_000;

/** One gpioset process and what it said so far. */
export interface Running {
  proc: ChildProcess;
  kind: 'hold' | 'pulse';
  /** We asked it to stop; its exit is expected. */
  stopping: boolean;
  stdout: string;
  stderr: string;
  exited: Promise<void>;
}

/** Starts gpioset with `args`, keeping the tail of its output for error messages. */
export function spawnGpioset(command: string, args: string[], kind: Running['kind']): Running {
  const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
export function gpiosetStarted(
  command: string,
  running: Running,
  version: GpiosetVersion,
  settle: boolean,
): Promise<void> {
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
    const onError = (err: Error) => done(new Error(cliFailure(command, err)));
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

/** Asks a gpioset to let go of its line (SIGTERM; SIGKILL if it does not) and waits until it has. */
export async function stop(running: Running): Promise<void> {
  running.stopping = true;
  const { proc } = running;
  if (proc.exitCode === null && proc.signalCode === null && proc.pid !== undefined) {
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), KILL_GRACE_MS);
    await running.exited;
    clearTimeout(timer);
  }
}

export function failed(running: Running): boolean {
  const { proc } = running;
  return proc.exitCode !== null ? proc.exitCode !== 0 : proc.signalCode !== null && !running.stopping;
}

export function describeExit(proc: ChildProcess): string {
  return proc.signalCode ? `killed by ${proc.signalCode}` : `exit code ${proc.exitCode}`;
}

export function lastLine(text: string): string {
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
