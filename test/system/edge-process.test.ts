import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.js';

/**
 * The edge as a real process (`npm run edge` equivalent): it starts from environment config,
 * shuts down cleanly on SIGTERM, and an acknowledged write survives a hard kill.
 */
const dir = mkdtempSync(join(tmpdir(), 'yard-sys-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  YARD_DATA_DIR: dir,
  YARD_HTTP_PORT: String(port),
  YARD_HTTP_HOST: '127.0.0.1',
  YARD_ADMIN_USER: 'boss',
  YARD_ADMIN_PASSWORD: 'boss-password-123',
  YARD_LOG_LEVEL: 'warn',
};

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function startEdge(extra: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'edge/main.ts'], {
    env: { ...env, ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The exit, or 'still running' after `ms` (the child is then killed). */
async function exitWithin(
  child: ChildProcess,
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>,
  ms: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null } | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((r) => {
    timer = setTimeout(() => r('still running'), ms);
  });
  const result = await Promise.race([done, late]);
  clearTimeout(timer);
  if (result === 'still running') child.kill('SIGKILL');
  return result;
}

async function waitReady(child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`edge exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('edge did not become ready in 20 s');
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
}

async function login(): Promise<string> {
  const res = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'boss', password: 'boss-password-123' }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

describe('edge process', () => {
  it('starts from env, serves, and exits 0 on SIGTERM', async () => {
    const child = startEdge();
    await waitReady(child);
    const token = await login();
    const me = await fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { name: string }).name).toBe('boss');
    const done = exited(child);
    child.kill('SIGTERM');
    expect(await done).toEqual({ code: 0, signal: null });
  });

  it('an acknowledged write survives kill -9, and the restarted edge serves it', async () => {
    const child = startEdge();
    await waitReady(child);
    const token = await login();
    const created = await fetch(`${base}/api/carrier`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'Survivor Freight', scac: 'SRVF' }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const done = exited(child);
    child.kill('SIGKILL');
    await done;
    // Straight from the file, as a cold reader would see it after power loss.
    const db = new Database(join(dir, 'yard.db'), { readonly: true });
    expect(db.prepare('SELECT name FROM carrier WHERE id = ?').get(id)).toEqual({ name: 'Survivor Freight' });
    expect(
      db.prepare("SELECT count(*) AS n FROM change_log WHERE entity = 'carrier' AND entity_id = ?").get(id),
    ).toEqual({ n: 1 });
    db.close();
    const again = startEdge();
    await waitReady(again);
    const token2 = await login();
    const read = await fetch(`${base}/api/carrier/${id}`, { headers: { authorization: `Bearer ${token2}` } });
    expect(read.status).toBe(200);
    const stopped = exited(again);
    again.kill('SIGTERM');
    expect((await stopped).code).toBe(0);
  });

  it('exits 0 on SIGTERM within seconds when the reader of its stdout has gone (EPIPE)', async () => {
    const child = startEdge({ YARD_LOG_LEVEL: 'info' });
    await waitReady(child);
    // The reader of the edge's stdout goes away (a supervisor or a `| head` that exited). The
    // first lines to meet the broken pipe are the shutdown's own.
    child.stdout?.destroy();
    const done = exited(child);
    child.kill('SIGTERM');
    expect(await exitWithin(child, done, 8_000)).toEqual({ code: 0, signal: null });
  });

  it('exits on SIGTERM within seconds when the reader of its stdout has stopped reading (full pipe)', async () => {
    const child = startEdge({ YARD_LOG_LEVEL: 'info' });
    await waitReady(child);
    // Never read: the pipe (64 KiB) and our stream buffer fill up, then every write gets EAGAIN.
    child.stdout?.pause();
    const token = await login();
    for (let i = 0; i < 600; i++) {
      await fetch(`${base}/api/auth/me?padding=${'x'.repeat(200)}`, {
        headers: { authorization: `Bearer ${token}` },
      });
    }
    // Still serving while its log backs up.
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const done = exited(child);
    child.kill('SIGTERM');
    expect(await exitWithin(child, done, 8_000)).toEqual({ code: 0, signal: null });
  });

  it('reports every configuration problem at once and exits 2', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'edge/main.ts'], {
      env: { ...env, YARD_HTTP_PORT: 'eighty', YARD_LOG_LEVEL: 'loud' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += String(d);
    });
    const { code } = await exited(child);
    expect(code).toBe(2);
    expect(stderr).toContain('YARD_HTTP_PORT');
    expect(stderr).toContain('YARD_LOG_LEVEL');
  });
});
