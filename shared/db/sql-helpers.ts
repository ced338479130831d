import {
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  PostgresAdapter,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import type { DB } from './tables.js';

/** Small SQL pieces the module repos share (a module never imports another module's repo). */

/** `%value%` for LIKE ... ESCAPE '\' with the wildcards in value escaped. */
export function likeContains(value: string): string {
  return `%${escapeLike(value)}%`;
}

export function escapeLike(value: string): string {
  return value.replace(/[%_\\]/g, (c) => `\\${c}`);
}

/**
 * Whether a text column contains `q`, ignoring ASCII case, the same on SQLite and PostgreSQL:
 * SQLite's LIKE ignores ASCII case and PostgreSQL's does not, so both sides are lower-cased (the
 * text columns are COLLATE "C" on PostgreSQL, where lower() then changes ASCII letters only, as
 * SQLite's does), and the escape character is named (SQLite has no default one).
 */
export function textContains(column: Expression<string | null>, q: string): Expression<SqlBool> {
  return sql<SqlBool>`lower(${column}) like ${likeContains(q.toLowerCase())} escape '\\'`;
}

/**
 * A read a write transaction decides on (read, check, then write): on PostgreSQL its rows stay
 * locked until commit (FOR UPDATE), so a concurrent transaction making the same decision waits and
 * then reads what the first one wrote, as it does on SQLite. SQLite needs (and parses) no lock: the
 * app runs one write transaction at a time on its one connection. Without it, on PostgreSQL's READ
 * COMMITTED, two requests could both pass the check and both write.
 */
export function forWrite<D, T extends keyof D, O>(
  db: Kysely<D>,
  query: SelectQueryBuilder<D, T, O>,
): SelectQueryBuilder<D, T, O> {
  return db.getExecutor().adapter instanceof PostgresAdapter ? query.forUpdate() : query;
}

/** Units (trucks, trailers) outside any yard, or in one of `yardIds`. */
export function unitInScope<T extends 'truck' | 'trailer'>(yardIds: string[]) {
  return (eb: ExpressionBuilder<DB, T>) => {
    const ref = eb.ref('yardId' as never);
    return yardIds.length === 0
      ? eb(ref, 'is', null)
      : eb.or([eb(ref, 'is', null), eb(ref, 'in', yardIds as never)]);
  };
}

/**
 * Whether a write failed on a unique index, on either database: better-sqlite3 says
 * SQLITE_CONSTRAINT_UNIQUE, node-postgres the SQLSTATE 23505 (unique_violation). For a service
 * that turns a race lost to another writer into its own answer.
 */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}
