import { createServer } from 'node:net';

/**
 * Ports for the servers tests start as child processes (the cloud, an edge, Mosquitto,
 * PostgreSQL), which bind them seconds after the test picks them.
 *
 * Picking with `listen(0)` and closing, or at random, let two test files that run in parallel
 * pick the same port, or an outgoing connection take it as its local port in the meantime; then
 * one file's readiness check was answered by the other file's process (a 401 login in CI). So the
 * ports come from below Linux's ephemeral range (32768 and up, where `listen(0)` and outgoing
 * connections take theirs), and each vitest worker has its own block of them: no other test can
 * take one, and each is checked free before it is handed out.
 */
const FIRST = 10_000;
const BLOCK = 450;
const BLOCKS = 50; // FIRST + BLOCKS * BLOCK stays below 32768

/** This process's block: the vitest worker's (1..maxWorkers), else one chosen by the pid (benchmarks). */
const worker = Number(process.env.VITEST_POOL_ID ?? 0) || (process.pid % (BLOCKS - 10)) + 10;
const blockStart = FIRST + (worker % BLOCKS) * BLOCK;
let next = 0;

/** The first of `count` consecutive ports that nothing listens on, for this process only. */
export async function freePorts(count: number): Promise<number> {
  for (let tried = 0; tried < BLOCK; tried++) {
    if (next + count > BLOCK) next = 0;
    const first = blockStart + next;
    next += count;
    const ports = Array.from({ length: count }, (_, i) => first + i);
    if ((await Promise.all(ports.map(isFree))).every(Boolean)) return first;
  }
  throw new Error(`no ${count} free consecutive ports in ${blockStart}..${blockStart + BLOCK - 1}`);
}

/** One port that nothing listens on, for this process only. */
export async function freePort(): Promise<number> {
  return freePorts(1);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
