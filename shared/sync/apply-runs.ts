import type { SqlWork } from '../db/sql-work.js';
import type { RowRules } from './apply-rules.js';
import { assertClockWithinSkew } from './clock-bounds.js';
import type { SyncDeps } from './deps.js';
import { entityByName } from './entities.js';
import type { RowChange, RowEffect, StoredRow } from './row-change.js';
import { RowRejected } from './row-errors.js';
import type { Fields, RowSql, TableShape } from './row-sql.js';
import type { SiteTrust } from './site-trust.js';

/** Consecutive rows of one table whose rule is a plain insert if absent (RowRules.plainInsert). */
export interface InsertRun {
  shape: TableShape;
  rows: Array<{ change: RowChange; data: Fields }>;
}

/** A run shorter than this is applied row by row (nothing to save). */
const MIN_RUN = 2;

/**
 * Set-based apply of runs of insert-only rows (docs/sync.md "Apply, ack, resume"): a site's batch is
 * mostly its drivers' location pings, task events and gate actuations, immutable rows that are
 * inserted if absent and that no observer follows. Row by row each costs a read of the stored row
 * (the trust check) and an insert: on PostgreSQL two round trips a row. A run of them costs one
 * read of the stored rows and one insert for the whole run, with the same effect:
 * - the rules are RowRules' (plainInsert says which rows qualify; nothing else is decided here);
 * - every row passes the clock bounds and, at the cloud, the site's trust check, against the stored
 *   rows read together (locked on PostgreSQL, as the row-by-row read is);
 * - the trust check reads other tables only (a session's or a parent record's yard), never the
 *   run's table, and the run's ids are distinct, so inserting the run after checking all of it
 *   writes what inserting each row after checking it would;
 * - any failure (a refused row, a foreign key that a later row of the batch satisfies, a value the
 *   column refuses) throws: the caller's group savepoint rolls everything back and the group is
 *   applied again row by row (apply-rows.ts), where dead letters and deferred foreign keys are
 *   decided exactly as before.
 */
export class InsertRuns {
  constructor(
    private readonly deps: Pick<SyncDeps, 'hlc'>,
    private readonly rules: RowRules,
    private readonly sql: RowSql,
    /** The hub's trust check (SiteTrust): none at an edge. */
    private readonly trust?: SiteTrust,
  ) {}

  /** The run that starts at `rows[start]`, or undefined when that row is to be applied alone. */
  *runAt(rows: readonly RowChange[], start: number): SqlWork<InsertRun | undefined> {
    // The table's shape is read once per applier; the rules need it to say whether rows qualify.
    const entity = entityByName(rows[start]!.entity);
    if (entity && !this.sql.knownShape(entity)) yield* this.sql.shape(entity);
    const first = this.rules.plainInsert(rows[start]!);
    if (!first) return undefined;
    const run: InsertRun = { shape: first.shape, rows: [{ change: rows[start]!, data: first.data }] };
    const ids = new Set([rows[start]!.id]);
    for (let i = start + 1; i < rows.length; i++) {
      const change = rows[i]!;
      if (change.entity !== rows[start]!.entity || ids.has(change.id)) break;
      const plain = this.rules.plainInsert(change);
      if (!plain) break;
      run.rows.push({ change, data: plain.data });
      ids.add(change.id);
    }
    return run.rows.length >= MIN_RUN ? run : undefined;
  }

  /**
   * At the hub: the stored rows of a group's rows that are applied one by one (not in a run), read
   * before the group applies, one statement per table, tables in name order and rows in key order
   * (RowSql.selectMany): the trust check and the rules use them instead of a read per row, and two
   * nodes applying groups that share rows (a trailer two sites both edit) lock them in one order.
   * By the index of the row in the group; only a record's first row in the group (a later one reads
   * what the first wrote) and only rows no other row of the group can write first: not the tables
   * that observers of the group's tables write beside them (`beside`: a movement's visits, a deleted
   * task's events), nor push tokens (a token replaces other ids' rows).
   */
  *prefetch(
    group: readonly RowChange[],
    beside: (table: string) => ReadonlySet<string>,
  ): SqlWork<Map<number, StoredRow>> {
    const found = new Map<number, StoredRow>();
    if (!this.trust) return found;
    const derived = new Set<string>();
    for (const row of group) {
      const table = entityByName(row.entity)?.table;
      if (table) for (const t of beside(table)) derived.add(t);
    }
    const byEntity = new Map<string, Map<string, number>>();
    const seen = new Set<string>();
    for (const [i, row] of group.entries()) {
      const entity = entityByName(row.entity);
      const first = !seen.has(`${row.entity}|${row.id}`);
      seen.add(`${row.entity}|${row.id}`);
      if (!entity || !first || derived.has(entity.table) || entity.entity === 'push_token') continue;
      if (!this.sql.knownShape(entity)) yield* this.sql.shape(entity);
      if (this.rules.plainInsert(row)) continue; // read with its run (or alone)
      const ids = byEntity.get(entity.entity) ?? new Map<string, number>();
      byEntity.set(entity.entity, ids);
      ids.set(row.id, i);
    }
    for (const name of [...byEntity.keys()].sort()) {
      const ids = byEntity.get(name)!;
      const shape = this.sql.knownShape(entityByName(name)!)!;
      const stored = yield* this.sql.selectMany(shape, [...ids.keys()]);
      for (const [id, i] of ids) found.set(i, { row: stored.get(id) });
    }
    return found;
  }

  /** The run's rows, each with what applying it did, in order. Throws as one row would. */
  *apply(peer: string, run: InsertRun): SqlWork<Array<{ row: RowChange; effect: RowEffect }>> {
    const { shape } = run;
    for (const { change } of run.rows) assertClockWithinSkew(this.deps.hlc, change); // clock-bounds.ts
    const admitted: Array<{ row: RowChange; data: Fields }> = [];
    if (this.trust) {
      const stored = yield* this.sql.selectMany(
        shape,
        run.rows.map((r) => r.change.id),
      );
      for (const { change, data } of run.rows) {
        const verdict = yield* this.trust.admit(peer, change, { row: stored.get(change.id) });
        // The trust check returns these records as sent. Should it ever change one into something
        // else than a plain insert, the throw sends the group back to row by row (see above).
        const plain = verdict.change === change ? { data } : this.rules.plainInsert(verdict.change);
        if (!plain) throw new RowRejected(`${change.entity} ${change.id} is applied alone`);
        admitted.push({ row: verdict.change, data: plain.data });
      }
    } else for (const { change, data } of run.rows) admitted.push({ row: change, data });

    const written = yield* this.sql.insertManyIfAbsent(
      shape,
      admitted.map((a) => a.data),
    );
    return admitted.map(({ row, data }) => {
      // As in RowApplier.applyOne: a row the rules took (written or already there) advances our clock.
      this.deps.hlc.receive(row.hlc);
      const effect: RowEffect = written.has(String(data[shape.keyField]))
        ? { changed: true, entity: shape.entity, stored: data }
        : { changed: false };
      return { row, effect };
    });
  }
}
