import type Database from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import type { PoolClient } from 'pg';
import type { Dialect, Kdb } from './database.js';

/**
 * Work written once for both databases, run synchronously on SQLite and awaited on PostgreSQL.
 *
 * The sync applier and the read models kept in step with writes decide what to write from what they
 * read, statement by statement, inside a transaction. On SQLite that must stay synchronous (the
 * applier holds better-sqlite3's connection for a whole batch; nothing may interleave, and tens of
 * thousands of rows a second leave no room for promise hops); on PostgreSQL every statement is a
 * round trip that must be awaited. So the work is a generator: it yields each statement (or a
 * savepoint step) and is resumed with its result, or has the database's error thrown into it, so a
 * `try`/`catch` in the work sees a constraint failure as it would in plain code. `SqliteWork` and
 * `PostgresWork` below are the only two drivers.
 */
export type SqlWork<T> = Generator<SqlStep, T, unknown>;

export type SqlStep =
  | { kind: 'sql'; statement: SqlStatement; params: readonly unknown[] }
  | { kind: 'savepoint'; action: 'begin' | 'release' | 'rollback' }
  | { kind: 'memo' };

/**
 * One statement. `text` is built once per driver (cached by `key`), with `?` placeholders (numbered
 * for PostgreSQL by the driver); it gets the dialect for the few places the SQL differs. `returns`:
 * - 'row': the first row (raw column names), or undefined;
 * - 'rows': every row;
 * - 'value': the first column of the first row, or undefined;
 * - 'changes': how many rows it inserted, updated or deleted.
 */
export interface SqlStatement {
  key: string;
  returns: 'row' | 'rows' | 'value' | 'changes';
  text(dialect: Dialect): string;
}

type Row = Record<string, unknown>;

/** Runs one statement in the work: `const row = yield* sqlRow(stmt, [id])`. */
export function* sqlRow(statement: SqlStatement, params: readonly unknown[]): SqlWork<Row | undefined> {
  return (yield { kind: 'sql', statement: expect(statement, 'row'), params }) as Row | undefined;
}

export function* sqlRows(statement: SqlStatement, params: readonly unknown[]): SqlWork<Row[]> {
  return (yield { kind: 'sql', statement: expect(statement, 'rows'), params }) as Row[];
}

export function* sqlValue(statement: SqlStatement, params: readonly unknown[]): SqlWork<unknown> {
  return yield { kind: 'sql', statement: expect(statement, 'value'), params };
}

export function* sqlRun(statement: SqlStatement, params: readonly unknown[]): SqlWork<number> {
  return (yield { kind: 'sql', statement: expect(statement, 'changes'), params }) as number;
}

/**
 * `work`'s value, computed once per run of the driver (one transaction) and kept for the rest of
 * it: lookups that many rows of one batch repeat (the sites, the yards' sites). A retried
 * transaction starts with nothing kept.
 */
export function* once<T>(
  key: string,
  work: () => SqlWork<T>,
  keep: (value: T) => boolean = () => true,
): SqlWork<T> {
  const memo = (yield { kind: 'memo' }) as Map<string, unknown>;
  if (memo.has(key)) return memo.get(key) as T;
  const value = yield* work();
  // `keep` false: asked again next time (a row not there yet may be written later in the transaction).
  if (keep(value)) memo.set(key, value);
  return value;
}

/** A statement declared once (module level) or built per shape and cached by key. */
export function statement(
  key: string,
  returns: SqlStatement['returns'],
  text: string | ((dialect: Dialect) => string),
): SqlStatement {
  return { key, returns, text: typeof text === 'string' ? () => text : text };
}

/**
 * `work` inside a savepoint: what it wrote stays if it returns, is undone if it throws (the error
 * goes on to the caller). On PostgreSQL this is also what lets the transaction go on after a
 * failed statement (a constraint), which otherwise aborts the whole transaction.
 */
export function* inSavepoint<T>(work: () => SqlWork<T>): SqlWork<T> {
  yield { kind: 'savepoint', action: 'begin' };
  let result: T;
  try {
    result = yield* work();
  } catch (err) {
    try {
      yield { kind: 'savepoint', action: 'rollback' };
    } catch {
      // The database ended the whole transaction itself (SQLite does on a full disk or an I/O
      // error): there is no savepoint left, and the error that ended it is the one to report.
    }
    throw err;
  }
  yield { kind: 'savepoint', action: 'release' };
  return result;
}

function expect(statement: SqlStatement, returns: SqlStatement['returns']): SqlStatement {
  if (statement.returns !== returns)
    throw new Error(`statement ${statement.key} returns ${statement.returns}, not ${returns}`);
  return statement;
}

/**
 * Savepoints nest by name: both databases release or roll back to the most recent savepoint of
 * that name, so one name serves any depth.
 */
const SAVEPOINT = {
  begin: 'SAVEPOINT yard_work',
  release: 'RELEASE SAVEPOINT yard_work',
  rollback: 'ROLLBACK TO SAVEPOINT yard_work; RELEASE SAVEPOINT yard_work',
} as const;

/** Drives work synchronously on better-sqlite3 (inside the caller's transaction). */
export class SqliteWork {
  private readonly prepared = new Map<string, Database.Statement>();

  constructor(readonly sqlite: Database.Database) {}

  run<T>(work: SqlWork<T>): T {
    const memo = new Map<string, unknown>();
    let step = work.next();
    while (!step.done) {
      let result: unknown;
      try {
        result = step.value.kind === 'memo' ? memo : this.execute(step.value);
      } catch (err) {
        step = work.throw(err);
        continue;
      }
      step = work.next(result);
    }
    return step.value;
  }

  private execute(step: Exclude<SqlStep, { kind: 'memo' }>): unknown {
    if (step.kind === 'savepoint') {
      this.sqlite.exec(SAVEPOINT[step.action]);
      return undefined;
    }
    const { statement, params } = step;
    let prepared = this.prepared.get(statement.key);
    if (!prepared) {
      prepared = this.sqlite.prepare(statement.text('sqlite'));
      if (statement.returns === 'value') prepared.pluck(true);
      this.prepared.set(statement.key, prepared);
    }
    switch (statement.returns) {
      case 'row':
      case 'value':
        return prepared.get(...params);
      case 'rows':
        return prepared.all(...params);
      case 'changes':
        return prepared.run(...params).changes;
    }
  }
}

/** What PostgresWork needs of a connection: a statement's rows and how many rows it changed. */
type PostgresQuery = (
  text: string,
  params: unknown[],
  name?: string,
) => Promise<{ rows: Row[]; changes: number }>;

/**
 * Drives work on PostgreSQL, one awaited round trip per statement: through a Kysely transaction
 * (`run`), or straight on a node-postgres connection in a transaction (`runOnClient`), where each
 * statement is prepared once per connection under a name and then only bound and executed: no parse
 * and plan per row for the sync applier's thousands of statements a second (docs/sync.md "Apply,
 * ack, resume"). Rows come back with their column names as stored (no camelCase plugin), as on SQLite.
 */
export class PostgresWork {
  private readonly texts = new Map<string, string>();

  run<T>(trx: Kdb, work: SqlWork<T>): Promise<T> {
    const raw = trx.withoutPlugins();
    return this.drive(work, async (text, params) => {
      const result = await raw.executeQuery<Row>(CompiledQuery.raw(text, params));
      return { rows: result.rows as Row[], changes: Number(result.numAffectedRows ?? 0n) };
    });
  }

  /** On a connection already in a transaction (the caller begins and ends it). */
  runOnClient<T>(client: PoolClient, work: SqlWork<T>): Promise<T> {
    return this.drive(work, async (text, params, name) => {
      const result = await client.query<Row>(
        name ? { name, text, values: params } : { text, values: params },
      );
      return { rows: result.rows, changes: result.rowCount ?? 0 };
    });
  }

  private async drive<T>(work: SqlWork<T>, query: PostgresQuery): Promise<T> {
    const memo = new Map<string, unknown>();
    let step = work.next();
    while (!step.done) {
      let result: unknown;
      try {
        result = step.value.kind === 'memo' ? memo : await this.execute(query, step.value);
      } catch (err) {
        step = work.throw(err);
        continue;
      }
      step = work.next(result);
    }
    return step.value;
  }

  private async execute(query: PostgresQuery, step: Exclude<SqlStep, { kind: 'memo' }>): Promise<unknown> {
    if (step.kind === 'savepoint') {
      // pg's simple protocol takes the two statements of a rollback in one round trip.
      await query(SAVEPOINT[step.action], []);
      return undefined;
    }
    const { statement, params } = step;
    let text = this.texts.get(statement.key);
    if (text === undefined) {
      text = numberPlaceholders(statement.text('postgres'));
      this.texts.set(statement.key, text);
    }
    const result = await query(text, [...params], preparedName(text));
    switch (statement.returns) {
      case 'row':
        return result.rows[0];
      case 'value': {
        const row = result.rows[0];
        return row === undefined ? undefined : Object.values(row)[0];
      }
      case 'rows':
        return result.rows;
      case 'changes':
        return result.changes;
    }
  }
}

/**
 * One name per statement text for the whole process: node-postgres prepares a named statement once
 * per connection and refuses a name given another text, so a name is never reused. The texts are
 * the work's own statements (a few per table); past MAX_PREPARED, further texts run unnamed, so
 * no connection ever holds an unbounded number of prepared statements.
 */
const preparedNames = new Map<string, string>();
const MAX_PREPARED = 1_000;
/**
 * Statements over a JSON list of keys or rows (the set-based ones: once per group, so planning them
 * costs little) are planned each time: a generic plan made while a table was small (a sequential
 * scan of the location pings) stayed cached as the table grew, 1.8 ms a call instead of 0.08.
 */
const PLANNED_EACH_TIME = /::json\b/;
function preparedName(text: string): string | undefined {
  if (PLANNED_EACH_TIME.test(text)) return undefined;
  let name = preparedNames.get(text);
  if (name === undefined && preparedNames.size < MAX_PREPARED) {
    name = `yard_work_${preparedNames.size + 1}`;
    preparedNames.set(text, name);
  }
  return name;
}

/**
 * `?` placeholders to PostgreSQL's `$1, $2, ...`, leaving string literals and quoted identifiers
 * alone (the statements are ours; none uses `?` as an operator).
 */
export function numberPlaceholders(text: string): string {
  let out = '';
  let n = 0;
  let quote: string | undefined;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === '?') {
      n += 1;
      out += `$${n}`;
    } else out += ch;
  }
  return out;
}
