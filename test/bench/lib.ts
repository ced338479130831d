import { type ChildProcess, fork } from 'node:child_process';
import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

/** Runs autocannon against one URL and returns the figures we report. */
export async function load(opts: autocannon.Options): Promise<LoadResult> {
  const result = await autocannon({ ...opts });
  return {
    requestsPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    total: result.requests.total,
  };
}

/** Forks a TypeScript module as a child (through tsx) and waits for its `{ready, url}` message. */
export async function forkServer(
  module: string,
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; url: string; startedMs: number }> {
  const started = performance.now();
  const child = fork(module, [], {
    env,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${module} exited with ${code}`)));
    child.on('message', (msg: { ready?: boolean; url?: string }) => {
      if (msg.ready && msg.url) resolve(msg.url);
    });
  });
  return { child, url, startedMs: performance.now() - started };
}

export function ask<T>(child: ChildProcess, message: object, key: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (msg: Record<string, unknown>) => {
      if (key in msg) {
        child.off('message', onMessage);
        resolve(msg[key] as T);
      }
    };
    child.on('message', onMessage);
    child.send(message);
  });
}

export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.send({ cmd: 'stop' });
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

export function verdict(ok: boolean): string {
  return ok ? 'PASS' : 'FAIL';
}
