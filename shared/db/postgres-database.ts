import { CamelCasePlugin, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { redactUrl } from '../config.js';
import type { Logger } from '../log.js';
import { type PostgresDatabase, type QueryListener, SyncedWriteGuard } from './database.js';
import type { DB } from './tables.js';

export interface PostgresOptions {
  /** postgres://user:password@host:port/database?sslmode=... (TLS options as libpq reads them). */
  url: string;
  /** Connections this process keeps at most. */
  poolMax: number;
  /** The server cancels a statement running longer (0: no limit). */
  statementTimeoutMs: number;
  log?: Logger;
}

// PostgreSQL type ids (pg_type.oid) whose text node-postgres leaves as strings by default.
const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * bigint (epoch ms, money in minor units, counts) and numeric (what sum() and avg() of bigints
 * give) come back as JavaScript numbers, as they do from SQLite, where that loses nothing: past
 * 2^53 the text is kept, rather than a silently rounded number.
 */
export function parseWholeNumber(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

export function parseNumeric(text: string): number | string {
  const n = Number(text);
  return Number.isFinite(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER ? n : text;
}

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return parseWholeNumber;
    if (oid === NUMERIC_OID) return parseNumeric;
    // biome-ignore lint/suspicious/noExplicitAny: pg's own overloads do not accept a union format
    return pg.types.getTypeParser(oid, format as any);
  },
};

/**
 * The cloud's database on PostgreSQL (docs/architecture.md "Two databases, and several cloud nodes"): node-postgres' pool under Kysely's
 * PostgresDialect, with the same plugins as SQLite (CamelCase, the synced-write guard), so repos
 * keep one query-builder code for both. Migrations are run by the caller (migrate-postgres.ts),
 * once per start, under a lock that several nodes share.
 */
export function openPostgres(o: PostgresOptions): PostgresDatabase {
  const pool = new pg.Pool({
    connectionString: o.url,
    max: o.poolMax,
    types,
    application_name: 'yard-cloud',
    ...(o.statementTimeoutMs > 0 ? { statement_timeout: o.statementTimeoutMs } : {}),
    // A connection that cannot be made in this time is an error to report, not a request left hanging.
    connectionTimeoutMillis: 10_000,
  });
  // An idle connection dropped by the server (restart, failover) must not end the process: the pool
  // replaces it on the next checkout.
  pool.on('error', (err) => o.log?.warn({ err }, 'a PostgreSQL connection failed; the pool replaces it'));
  // A connection in use (checked out) has no error listener of the pool's, and pg emits 'error' when
  // its session ends (server restart, failover, a terminated session): unheard, that is an uncaught
  // exception that ends the process. Heard here and nothing more: the query in flight fails with
  // the error, a later one with "not queryable", and the pool drops the connection when it is back.
  pool.on('connect', (client) => client.on('error', () => {}));
  const listeners = new Set<QueryListener>();
  const kysely = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new CamelCasePlugin(), new SyncedWriteGuard()],
    log: (event) => {
      if (listeners.size === 0) return;
      for (const l of listeners) l(event.query.sql, event.query.parameters, event.queryDurationMillis);
    },
  });
  let closing: Promise<void> | undefined;
  return {
    dialect: 'postgres',
    kysely,
    pool,
    where: redactUrl(o.url),
    onQuery(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      // Kysely's destroy ends the pool once the checked-out connections are back.
      closing ??= kysely.destroy();
      return closing;
    },
  };
}
