import { workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { ReadStatements, type ReadTask } from './read-pool-statements.js';

/** What the pool hands each worker (read-pool.ts). */
export interface ReadWorkerData {
  file: string;
  busyTimeoutMs: number;
}

let statements: ReadStatements | undefined;

/**
 * Opened on the first read, not at import: an error opening the file then fails that read (a 500
 * for its request) rather than the worker's start.
 */
function open(): ReadStatements {
  const { file, busyTimeoutMs } = workerData as ReadWorkerData;
  // Read-only twice over: the connection cannot write the file, and query_only refuses writes even
  // through a statement that slipped past the reader check. WAL (set by the writer) lets this
  // connection read beside the main thread's writes; each statement sees the last commit before it.
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  sqlite.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  sqlite.pragma('query_only = ON');
  return new ReadStatements(sqlite);
}

/** The pool's task: one read, answered as rows (structured-cloned back to the main thread). */
export default function read(task: ReadTask): unknown[] {
  try {
    statements ??= open();
    return statements.all(task);
  } catch (err) {
    // A SqliteError reaches the main thread as a bare object (its class does not clone): send a
    // plain Error that keeps the message and SQLite's code.
    const e = err as { message?: string; code?: unknown };
    throw Object.assign(new Error(e.message ?? String(err)), { code: e.code });
  }
}
