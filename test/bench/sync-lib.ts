import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
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
  console.log('\nResults');
  for (const [text, ok] of checks) console.log(`  ${verdict(ok)}  ${text}`);
  mkdirSync('test/bench/results', { recursive: true });
  const file = `test/bench/results/${name}.json`;
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        machine: { cpus: cpus().length, node: process.version },
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
