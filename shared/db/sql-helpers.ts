import {
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  PostgresAdapter,
  type RawBuilder,
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
  return sql<SqlBool>`lower(${column}) like ${likeContains(asciiLower(q))} escape '\\'`;
}

/**
 * Whether a lower-cased text (an expression such as `lower(number)`, or a column stored lower or
 * upper case throughout) starts with `key`, written as a range so that a B-tree index on that very
 * expression answers it on both databases: LIKE 'abc%' uses no index on SQLite (not on an
 * expression, nor with its case-insensitive LIKE) and needs a "C" collation on PostgreSQL, while
 * `>= 'abc' AND < 'abd'` is a plain index range on both (text compares bytewise here: SQLite's
 * BINARY, PostgreSQL's COLLATE "C"). `key` must be in the column's form (asciiLower'd for lower()).
 */
export function textStartsWithKey(column: Expression<string | null>, key: string): Expression<SqlBool> {
  const chars = Array.from(key);
  const last = chars.pop()?.codePointAt(0);
  if (last === undefined) return sql<SqlBool>`${column} is not null`;
  // The smallest text after every text that starts with key: its last character, one higher.
  const end = chars.join('') + String.fromCodePoint(last + 1);
  return sql<SqlBool>`(${column} >= ${key} and ${column} < ${end})`;
}

/**
 * How well a text column matches `q`, ignoring ASCII case as textContains does: 3 equal, 2 starts
 * with, 1 contains, 0 not at all. The one ranking of text searches (the search across kinds,
 * shared/modules/search); a search narrows its rows first (an index, textContains) and ranks them.
 */
export function textMatchRank(column: Expression<string | null>, q: string): RawBuilder<number> {
  const key = asciiLower(q);
  return sql<number>`case when lower(${column}) = ${key} then 3
    when lower(${column}) like ${`${escapeLike(key)}%`} escape '\\' then 2
    when lower(${column}) like ${likeContains(key)} escape '\\' then 1 else 0 end`;
}

/**
 * Lower-cases A-Z only, as SQL lower() does on both databases here (SQLite's lower() is ASCII-only;
 * PostgreSQL's text columns are COLLATE "C"): JavaScript's toLowerCase would also fold Ü to ü, which
 * the column's lower() never does, and "Über" would not find "Überland".
 */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
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

/** The SQL a query builder speaks: for the few dialect branches below, each commented. */
export function sqlDialectOf(db: Kysely<DB>): 'sqlite' | 'postgres' {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * The strings of a JSON array held in a text column (yard scopes: `["id1","id2"]`), as a FROM item
 * named `alias` with one column `value`; a NULL column gives no rows. A dialect branch because no
 * SQL reads JSON on both: SQLite has json_each (its `value` column), PostgreSQL
 * json_array_elements_text over the text cast to json (the column named in the alias).
 */
export function jsonArrayStrings(
  db: Kysely<DB>,
  column: Expression<string | null>,
  alias: string,
): RawBuilder<unknown> {
  const as = sql.id(alias);
  return sqlDialectOf(db) === 'postgres'
    ? sql`json_array_elements_text(${column}::json) AS ${as}(value)`
    : sql`json_each(${column}) AS ${as}`;
}
