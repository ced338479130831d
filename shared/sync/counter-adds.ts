import type { Dialect } from '../db/database.js';
import { type SqlStatement, type SqlWork, sqlRun, statement } from '../db/sql-work.js';

/**
 * A table of additive counters (a read model such as the dashboard's rollups): rows keyed by
 * `keys`, whose `amounts` only ever have deltas added (INSERT ... ON CONFLICT DO UPDATE SET a = a +
 * excluded.a). Column names as stored (snake_case).
 */
export interface Counter {
  table: string;
  keys: readonly string[];
  amounts: readonly string[];
}

/**
 * Where a writer that writes many rows in one transaction collects the counter additions of its
 * rows' observers (RowWrite.counters), to write them summed, once, at the end (CounterSums.write).
 */
export interface CounterAdds {
  add(counter: Counter, key: ReadonlyArray<string | number>, amounts: readonly number[]): void;
}

/** Summed rows per statement (each sent as one JSON parameter). */
const CHUNK = 1000;

/**
 * Counter additions summed in memory (docs/sync.md "Apply, ack, resume"): the sync applier collects
 * those of a group of rows while it applies them, keeps them once the group's savepoint is released
 * (absorb), and writes them at the end of its transaction, one statement per counter table:
 * - a movement adds to five counters (three grains of its yard, two of every yard): a site's batch
 *   of 100 movements of one hour was 500 round trips, and is now one statement;
 * - the rows are written sorted by key, so every transaction takes the counters' row locks in the
 *   same order (two cloud nodes applying two sites at once wait for each other, never deadlock),
 *   and takes them at the end, so they are held only until the commit that follows.
 * Sums that come to zero are not written (what a row added, a later row of the group took back).
 */
export class CounterSums implements CounterAdds {
  private readonly sums = new Map<Counter, Map<string, { key: Array<string | number>; amounts: number[] }>>();

  add(counter: Counter, key: ReadonlyArray<string | number>, amounts: readonly number[]): void {
    let rows = this.sums.get(counter);
    if (!rows) {
      rows = new Map();
      this.sums.set(counter, rows);
    }
    const id = JSON.stringify(key);
    const row = rows.get(id);
    if (!row) rows.set(id, { key: [...key], amounts: [...amounts] });
    else for (const [i, a] of amounts.entries()) row.amounts[i] = (row.amounts[i] ?? 0) + a;
  }

  /** Adds everything `other` collected (a group's sums, once its savepoint is released). */
  absorb(other: CounterSums): void {
    for (const [counter, rows] of other.sums)
      for (const { key, amounts } of rows.values()) this.add(counter, key, amounts);
  }

  get empty(): boolean {
    return this.sums.size === 0;
  }

  /** Writes the sums (sorted by key, zero sums left out) and forgets them. */
  *write(): SqlWork<void> {
    const all = [...this.sums].sort(([a], [b]) => (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
    this.sums.clear();
    for (const [counter, rows] of all) {
      const sorted = [...rows.values()]
        .filter((r) => r.amounts.some((a) => a !== 0))
        .sort((a, b) => compareKeys(a.key, b.key));
      const stmt = addStatement(counter);
      for (let i = 0; i < sorted.length; i += CHUNK) {
        const objects = sorted.slice(i, i + CHUNK).map(({ key, amounts }) => {
          const o: Record<string, unknown> = {};
          counter.keys.forEach((c, k) => {
            o[c] = key[k];
          });
          counter.amounts.forEach((c, k) => {
            o[c] = amounts[k];
          });
          return o;
        });
        yield* sqlRun(stmt, [JSON.stringify(objects)]);
      }
    }
  }
}

/** Key order: column by column, numbers as numbers, text by code unit (the same in every process). */
function compareKeys(a: ReadonlyArray<string | number>, b: ReadonlyArray<string | number>): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

const statements = new Map<string, SqlStatement>();

/**
 * INSERT ... SELECT of a JSON array of objects keyed by column, in array order (key order), adding
 * to rows that exist. PostgreSQL converts each value to its column's type (json_populate_recordset);
 * SQLite takes JSON numbers and strings as they are (`WHERE true`: see row-sql.ts insertManyText).
 */
function addStatement(counter: Counter): SqlStatement {
  const key = `counter|add|${counter.table}`;
  let stmt = statements.get(key);
  if (!stmt) {
    stmt = statement(key, 'changes', (dialect) => addText(counter, dialect));
    statements.set(key, stmt);
  }
  return stmt;
}

function addText({ table, keys, amounts }: Counter, dialect: Dialect): string {
  const columns = [...keys, ...amounts];
  const list = columns.map((c) => `"${c}"`).join(', ');
  const source =
    dialect === 'postgres'
      ? `SELECT ${columns.map((c) => `v."${c}"`).join(', ')} FROM json_populate_recordset(NULL::"${table}", ?::json) ` +
        'WITH ORDINALITY AS v ORDER BY v.ordinality'
      : `SELECT ${columns.map((c) => `value ->> '$."${c}"'`).join(', ')} FROM json_each(?) WHERE true ORDER BY key`;
  const set = amounts.map((a) => `"${a}" = "${table}"."${a}" + excluded."${a}"`).join(', ');
  return `INSERT INTO "${table}" (${list}) ${source} ON CONFLICT (${keys.map((k) => `"${k}"`).join(', ')}) DO UPDATE SET ${set}`;
}
