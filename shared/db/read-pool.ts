import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { CamelCasePlugin, Kysely } from 'kysely';
import { Piscina } from 'piscina';
import type { Component } from '../lifecycle.js';
import type { AppDatabase, Kdb, QueryListener } from './database.js';
import { readPoolDialect } from './read-pool-dialect.js';
import { ReadStatements, type ReadTask } from './read-pool-statements.js';
import type { ReadWorkerData } from './read-worker.js';
import type { DB } from './tables.js';

export interface ReadPoolOptions {
  /**
   * The database the workers read (its file; its connection for reads on the main thread). On
   * PostgreSQL there are no workers: reads are already off the event loop (node-postgres waits on
   * sockets), so `kysely` is the database's own builder over its connection pool.
   */
  db: AppDatabase | { dialect: 'sqlite'; file: string; sqlite: Database.Database };
  /** Worker threads. 0, or an in-memory database (which no other connection can see), reads on the main thread. */
  size: number;
  /** How long a worker's read waits for a lock (a checkpoint) before it fails. */
  busyTimeoutMs?: number;
  /**
   * A worker's heap limit: a read whose rows do not fit ends that worker (its read fails, a new
   * worker takes its place) instead of the process. Default: Node's.
   */
  maxHeapMb?: number;
}

/**
 * Heavy reads off the event loop: a few worker threads, each with its own read-only connection to
 * the database file, run the SQL that the main thread compiled (`kysely` below: repos keep their
 * query-builder code, and the rows come back camel-cased as from the main builder). better-sqlite3
 * is synchronous, so a read on the main thread stops every other request for as long as it runs;
 * here the main thread only compiles the query and receives the rows.
 *
 * Consistency: each statement sees the last commit before it began (WAL readers), and two statements
 * of one request may see different commits: fine for figures, which are a moment's picture anyway.
 * Nothing that must see the caller's own uncommitted transaction may read through the pool (it would
 * not see it), nor anything that decides a write: use the main `kysely` there.
 *
 * Before start(), after stop(), with size 0 or an in-memory database, the same reads run on the main
 * thread's connection, through the same statement runner, so they give the same rows.
 */
export class ReadPool implements Component {
  readonly name = 'read pool';
  /** The query builder whose queries run in the pool (selects only). */
  readonly kysely: Kdb;
  private pool: Piscina<ReadTask, unknown[]> | undefined;
  private readonly onMainThread: ReadStatements | undefined;
  private readonly listeners = new Set<QueryListener>();

  constructor(private readonly options: ReadPoolOptions) {
    const db = options.db;
    if (db.dialect === 'postgres') {
      this.onMainThread = undefined;
      this.kysely = db.kysely;
      return;
    }
    this.onMainThread = new ReadStatements(db.sqlite);
    this.kysely = new Kysely<DB>({
      dialect: readPoolDialect((task) => this.all(task)),
      plugins: [new CamelCasePlugin()],
      log: (event) => {
        for (const l of this.listeners) l(event.query.sql, event.query.parameters, event.queryDurationMillis);
      },
    });
  }

  /** How many worker threads read now (0: reads run on the main thread). */
  get workers(): number {
    return this.pool?.threads.length ?? 0;
  }

  async start(): Promise<void> {
    const { size, db } = this.options;
    if (this.pool || size <= 0 || db.dialect !== 'sqlite' || db.file === ':memory:' || db.file === '') return;
    const ext = extname(fileURLToPath(import.meta.url));
    const workerData: ReadWorkerData = { file: db.file, busyTimeoutMs: this.options.busyTimeoutMs ?? 5000 };
    const pool = new Piscina<ReadTask, unknown[]>({
      // Beside this module with its extension: read-worker.ts from the sources, .js from the build.
      filename: new URL(`./read-worker${ext}`, import.meta.url).href,
      minThreads: size,
      maxThreads: size,
      idleTimeout: Number.POSITIVE_INFINITY,
      workerData,
      ...(this.options.maxHeapMb
        ? { resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb } }
        : {}),
      execArgv: workerExecArgv(ext),
    });
    this.pool = pool;
    try {
      // A worker that cannot load, or a file it cannot open, fails the start rather than the first figure.
      await pool.run({ sql: 'select 1', parameters: [] });
    } catch (err) {
      this.pool = undefined;
      await pool.destroy();
      throw err;
    }
  }

  /** Ends the workers; reads still asked for after this run on the main thread. In-flight reads fail. */
  async stop(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }

  /** Runs one compiled read and answers its raw rows (column names as in the SQL). */
  all<R>(task: ReadTask): Promise<R[]> {
    const { sql, parameters } = task; // only these cross to the worker, not Kysely's query tree
    if (!this.pool) {
      try {
        if (!this.onMainThread) throw new Error('the read pool runs SQLite reads only');
        return Promise.resolve(this.onMainThread.all({ sql, parameters }) as R[]);
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return this.pool.run({ sql, parameters }) as Promise<R[]>;
  }

  /** Watch the reads run through `kysely` (SQL and parameters), as AppDatabase.onQuery does for the main builder. */
  onQuery(listener: QueryListener): () => void {
    if (this.options.db.dialect === 'postgres') return this.options.db.onQuery(listener);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * From the sources (.ts) the worker needs tsx's loader: inherited under `tsx` (npm start, npm run
 * cloud), added where the process has none (vitest transforms files itself). The build needs none.
 */
function workerExecArgv(ext: string): string[] | undefined {
  if (ext !== '.ts' || process.execArgv.some((arg) => arg.includes('tsx'))) return undefined;
  return [...process.execArgv, '--import', 'tsx'];
}
