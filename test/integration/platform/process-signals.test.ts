import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * shared/process.ts stopOnSignals with a stop that hangs (test/fixtures/hanging-stop.ts): the
 * deadline or a second signal still ends the process, after driving outputs to their safe state.
 */
const dir = mkdtempSync(join(tmpdir(), 'yard-signals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start(name: string, deadlineMs: number): Promise<{ child: ChildProcess; marker: string }> {
  const marker = join(dir, name);
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/hanging-stop.ts'], {
    env: { ...process.env, MARKER_FILE: marker, DEADLINE_MS: String(deadlineMs) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`exited early with ${code}`)));
  });
  return { child, marker };
}

function exitWithin(child: ChildProcess, ms: number): Promise<number | null | 'still running'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve('still running');
    }, ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe('stop on signals', () => {
  it('a stop that hangs is cut at the deadline: outputs driven safe, exit 1', async () => {
    const { child, marker } = await start('deadline', 500);
    const started = Date.now();
    child.kill('SIGTERM');
    expect(await exitWithin(child, 8_000)).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(readFileSync(marker, 'utf8')).toBe('safe');
  });

  it('a second signal forces the exit at once, outputs driven safe', async () => {
    const { child, marker } = await start('second', 60_000);
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    expect(existsSync(marker)).toBe(false);
    child.kill('SIGTERM');
    expect(await exitWithin(child, 5_000)).toBe(1);
    expect(readFileSync(marker, 'utf8')).toBe('safe');
  });
});
