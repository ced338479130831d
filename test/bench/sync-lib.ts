import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { verdict } from './lib.js';

/** Helpers shared by the sync benchmarks (test/bench/sync-*.ts). */

export interface Spread {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentiles of a sample (milliseconds in, milliseconds out). */
export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    n: sorted.length,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
  };
}

export function ms(value: number, digits = 2): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

/** Polls `cond` until it holds or the deadline passes; returns whether it held. */
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number },
): Promise<boolean> {
  const deadline = performance.now() + options.timeoutMs;
  for (;;) {
    if (await cond()) return true;
    if (performance.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 5));
  }
}

export type Check = [text: string, ok: boolean];

/**
 * Prints the checks, writes test/bench/results/<name>.json and sets the exit code: non-zero when a
 * target was missed (the `bench` script chains the benchmarks on their exit codes).
 */
export function finish(name: string, results: Record<string, unknown>, checks: Check[]): void {
  console.log(
    `\nResults (load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${cpus().length} cpus)`,
  );
  for (const [text, ok] of checks) console.log(`  ${verdict(ok)}  ${text}`);
  mkdirSync('test/bench/results', { recursive: true });
  const file = `test/bench/results/${name}.json`;
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        // Other work on the machine skews every figure here: the load average says how much there was.
        machine: { cpus: cpus().length, node: process.version, loadavg: loadavg() },
        results,
        checks,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`Details: ${file}`);
  process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
}

/** A child process of the sync benchmarks (sync-node.ts, sync-raw-node.ts) and its IPC calls. */
export interface BenchChild {
  child: ChildProcess;
  /** Calls a command of sync-node.ts; rejects with the child's error. */
  call<T = unknown>(cmd: string, args?: object): Promise<T>;
  /** Resolves with the next message that has `key`. */
  next<T = unknown>(key: string): Promise<T>;
  exit(): Promise<void>;
}

/** Forks a TypeScript module through tsx and waits for its `{ready: true}`. */
export async function forkChild(module: string, env: NodeJS.ProcessEnv): Promise<BenchChild> {
  const child = fork(module, [], {
    env,
    // BENCH_CPU_PROF=<dir>: every child writes a V8 CPU profile there when it exits.
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const waiters: Array<{ key: string; resolve: (v: unknown) => void }> = [];
  let seq = 0;
  child.on('message', (msg: Record<string, unknown>) => {
    if (typeof msg.id === 'number' && pending.has(msg.id)) {
      const p = pending.get(msg.id)!;
      pending.delete(msg.id);
      if ('error' in msg) p.reject(new Error(`${module}: ${String(msg.error)}`));
      else p.resolve(msg.result);
      return;
    }
    for (const w of [...waiters]) {
      if (w.key in msg) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(msg[w.key]);
      }
    }
  });
  const next = <T>(key: string) =>
    new Promise<T>((resolve) => waiters.push({ key, resolve: resolve as never }));
  await Promise.race([
    next('ready'),
    new Promise((_, reject) =>
      child.once('exit', (code) => reject(new Error(`${module} exited with ${code}`))),
    ),
  ]);
  return {
    child,
    next,
    call<T>(cmd: string, args: object = {}) {
      const id = ++seq;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as never, reject });
        child.send({ id, cmd, args });
      });
    },
    exit() {
      return new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.send({ cmd: 'exit' });
      });
    },
  };
}

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks per second. */
const CLOCK_TICKS_PER_SEC = 100;

/**
 * CPU milliseconds (user + system) used so far by a process and its direct children, living and
 * reaped (Linux /proc): e.g. a PostgreSQL server, whose work is done in one backend process per
 * connection forked by the postmaster. Undefined where there is no /proc.
 */
export function processTreeCpuMs(rootPid: number): number | undefined {
  if (!existsSync(`/proc/${rootPid}/stat`)) return undefined;
  let ticks = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the command name (which may hold spaces): state ppid ... utime(14) stime cutime cstime.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(name);
    const ppid = Number(fields[1]);
    if (pid !== rootPid && ppid !== rootPid) continue;
    // utime + stime, and for the root also its reaped children's (cutime + cstime).
    ticks += Number(fields[11]) + Number(fields[12]);
    if (pid === rootPid) ticks += Number(fields[13]) + Number(fields[14]);
  }
  return (ticks / CLOCK_TICKS_PER_SEC) * 1000;
}
