import type Database from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import type { AppDatabase, Kdb, PostgresDatabase, SqliteDatabase } from '../../../db/database.js';
import type { RowObserver, RowWrite, TransactionRowObserver } from '../../../sync/row-observers.js';
import {
  ROLLUP_STATEMENTS,
  ROLLUP_TABLES,
  type RollupStatement,
  type RollupStep,
  rollupWork,
} from './work.js';

/**
 * Keeps the dashboard's rollups (rules.ts) in step with each trailer, truck, movement and visit row
 * written, in the write's transaction. Registered with ChangeCapture.observers by the composition
 * root (shared/services.ts), which hands the same list to the sync applier. What is written is
 * decided once, in work.ts; the two classes below only run its statements.
 */
export function dashboardRollups(
  db: AppDatabase,
  /** Told of every write that may change a rollup (answers built from them are out of date). */
  onChange: () => void = () => {},
): DashboardRollups | PostgresDashboardRollups {
  return db.dialect === 'sqlite'
    ? new DashboardRollups(db, onChange)
    : new PostgresDashboardRollups(db, onChange);
}

/**
 * On SQLite: runs the statements on the better-sqlite3 connection the writers share (ChangeCapture's
 * Kysely transaction and the applier's transaction are both on it), synchronously, because the
 * applier cannot await. Statements are prepared once, up front.
 */
export class DashboardRollups implements RowObserver {
  readonly tables = ROLLUP_TABLES;
  private readonly statements: ReadonlyMap<RollupStatement, Database.Statement>;

  constructor(
    db: SqliteDatabase,
    private readonly onChange: () => void = () => {},
  ) {
    this.statements = new Map(
      ROLLUP_STATEMENTS.map((s) => {
        const prepared = db.sqlite.prepare(compiledText(db.kysely, s));
        return [s, s.reads ? prepared.pluck() : prepared];
      }),
    );
  }

  rowWritten(write: RowWrite): void {
    this.onChange();
    const work = rollupWork(write);
    for (let step = work.next(); !step.done; ) step = work.next(this.run(step.value));
  }

  private run({ statement, params }: RollupStep): unknown {
    const prepared = this.statements.get(statement)!;
    if (statement.reads) return prepared.get(...params);
    prepared.run(...params);
    return undefined;
  }
}

/**
 * On PostgreSQL: runs the statements through the write's Kysely transaction, awaiting each, so they
 * commit or roll back with the row. The SQL text of each statement is compiled once.
 */
export class PostgresDashboardRollups implements TransactionRowObserver {
  readonly tables = ROLLUP_TABLES;
  private readonly texts: ReadonlyMap<RollupStatement, string>;

  constructor(
    db: PostgresDatabase,
    private readonly onChange: () => void = () => {},
  ) {
    this.texts = new Map(ROLLUP_STATEMENTS.map((s) => [s, compiledText(db.kysely, s)]));
  }

  async rowWrittenIn(trx: Kdb, write: RowWrite): Promise<void> {
    this.onChange();
    const work = rollupWork(write);
    for (let step = work.next(); !step.done; ) step = work.next(await this.run(trx, step.value));
  }

  private async run(trx: Kdb, { statement, params }: RollupStep): Promise<unknown> {
    const result = await trx.executeQuery<Record<string, unknown>>(
      CompiledQuery.raw(this.texts.get(statement)!, [...params]),
    );
    if (!statement.reads) return undefined;
    const row = result.rows[0];
    return row === undefined ? undefined : Object.values(row)[0];
  }
}

/**
 * The statement's text in the database's own SQL (placeholders), compiled by its Kysely. The
 * parameters must come out in the order given (the callers bind them by position): checked here,
 * once per statement, with distinct marker values.
 */
function compiledText(kysely: Kdb, statement: RollupStatement): string {
  const markers = Array.from({ length: 8 }, (_, i) => `\u0000rollup-param-${i}`);
  const compiled = statement.sql(markers).compile(kysely);
  const used = compiled.parameters;
  if (!used.every((p, i) => p === markers[i]))
    throw new Error(`rollup statement ${statement.name} does not use its parameters in order`);
  return compiled.sql;
}
