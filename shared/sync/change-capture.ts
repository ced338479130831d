import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Clock } from '../clock.js';
import { type Kdb, unguarded } from '../db/database.js';
import { TableGenerations } from '../db/generations.js';
import { ShapeCache } from '../db/prepared.js';
import { forWrite } from '../db/sql-helpers.js';
import type { DB } from '../db/tables.js';
import { PreconditionFailedError } from '../http/errors.js';
import { ChangeLogWriter, INSERT_CHUNK, type PeersFor } from './change-log-writer.js';
import { entityOfTable, type SyncedEntity, type SyncedTable } from './entities.js';
import { firstFieldClocks, nextFieldClocks } from './field-clocks.js';
import type { Hlc } from './hlc.js';
import { allowEveryWrite, ownerDependsOnRow, type WriteGuard } from './ownership.js';
import { RowObservers } from './row-observers.js';
import type { SiteWrite } from './site-rules.js';

type Row<T extends SyncedTable> = Selectable<DB[T]>;
/** What a caller provides on insert: the row without the columns ChangeCapture owns. */
export type NewRow<T extends SyncedTable> = Omit<
  Insertable<DB[T]>,
  'hlc' | 'version' | 'fieldHlc' | 'apiJson'
>;
export type RowPatch<T extends SyncedTable> = Omit<
  Updateable<DB[T]>,
  'hlc' | 'version' | 'fieldHlc' | 'apiJson'
>;

const INSERT: SiteWrite = { op: 'insert' };

// Kysely's generics cannot follow a table name chosen at run time; the public methods are typed,
// the bodies use this loose view.
// biome-ignore lint/suspicious/noExplicitAny: see above
type Loose = any;

/**
 * The one way to write a synced record. Each call writes the row and its change_log row in the
 * same transaction (opening one if the caller has none), stamps the row's HLC and version, and for
 * shared records the per-field HLCs that the last-writer-wins merge needs (field-clocks.ts,
 * docs/sync.md "Conflict rules").
 */
export class ChangeCapture {
  /** Compiled statements per table and column set: writes skip Kysely's rebuild/compile (see prepared.ts). */
  private readonly shapes = new ShapeCache();
  /** Writes the change_log (and tombstone) rows that carry each write to its peers. */
  private readonly changeLog: ChangeLogWriter;
  /**
   * Told of every row written here and by the sync applier, inside the write's transaction (read
   * models such as the dashboard's rollups); the composition root adds them (shared/services.ts).
   * Told with the write's transaction and awaited (on PostgreSQL they write through it).
   */
  readonly observers = new RowObservers();

  constructor(
    private readonly hlc: Hlc,
    private readonly clock: Clock,
    /** Peers that need this side's changes: ['cloud'] on an edge, site ids on the cloud. */
    peersFor: PeersFor,
    /**
     * Who may write what in this sync mode (ownership.ts writeGuard): a refused write throws its
     * 409 before anything is written. Default: every write allowed (a standalone edge).
     */
    private readonly guard: WriteGuard = allowEveryWrite,
    /** Write counters per table, for caches of rendered answers. */
    readonly generations: TableGenerations = new TableGenerations(),
  ) {
    this.changeLog = new ChangeLogWriter(hlc, peersFor, this.shapes, generations);
  }

  /**
   * Called after change_log rows were written for these peers. The write's transaction may still be
   * open: a listener must not read the log before `sqlite.inTransaction` is false (uncommitted rows
   * could still roll back).
   */
  onLogged(listener: (peers: ReadonlySet<string>) => void): void {
    this.changeLog.onLogged(listener);
  }

  /**
   * Throws the 409 (`cloud-owned` / `edge-owned`) this side answers for a write to the table, if
   * any. For services with side effects before their write (calling a camera, pulsing a relay):
   * refuse up front. Camera and setting rows need `row` (their owner depends on source / scope);
   * a record split by field (an appointment) needs `write`: a linked edge refuses a booking
   * (`{op: 'insert'}`) or a change of booking fields (`{op: 'update', fields}`) before any work.
   */
  assertMayWrite(table: SyncedTable, row?: Record<string, unknown>, write?: SiteWrite): void {
    const refusal = this.guard(entityOfTable(table), row, write);
    if (refusal) throw refusal;
  }

  /** Whether this side may write the table (or that row, for camera / setting). */
  mayWrite(table: SyncedTable, row?: Record<string, unknown>): boolean {
    return this.guard(entityOfTable(table), row) === undefined;
  }

  /**
   * Tells the listeners that log rows for these peers were written. Public for the sync applier,
   * which writes forwarded rows into the log itself.
   */
  notifyLogged(peers: Iterable<string>): void {
    this.changeLog.notifyLogged(peers);
  }

  async insert<T extends SyncedTable>(db: Kdb, table: T, row: NewRow<T>): Promise<Row<T>> {
    return this.inTransaction(db, async (trx) => {
      const entity = entityOfTable(table);
      this.check(entity, row as Record<string, unknown>, INSERT);
      const hlc = this.hlc.next();
      const values: Record<string, unknown> = { ...row, hlc, version: 1 };
      if (entity.ownership === 'shared') values.fieldHlc = firstFieldClocks(Object.keys(row), hlc);
      const columns = Object.keys(values).filter((k) => values[k] !== undefined);
      const [written] = (await this.shapes.run(
        trx,
        `insert|${table}|${columns.join(',')}`,
        columns.map((c) => values[c]),
        (ph) =>
          (unguarded(trx) as Loose)
            .insertInto(table)
            .values(Object.fromEntries(columns.map((c, i) => [c, ph[i]])))
            .returningAll(),
      )) as Row<T>[];
      if (!written) throw new Error(`insert into ${table} returned no row`);
      await this.changeLog.log(trx, entity, 'upsert', written as Record<string, unknown>, hlc);
      await this.observers.notifyIn(trx, table, undefined, written as Record<string, unknown>);
      return written;
    });
  }

  /**
   * Inserts many rows of one table (same columns in every row) with their change_log rows, in
   * chunks of one multi-row INSERT each: for high-rate inputs such as location pings.
   */
  async insertMany<T extends SyncedTable>(db: Kdb, table: T, rows: ReadonlyArray<NewRow<T>>): Promise<void> {
    if (rows.length === 0) return;
    const entity = entityOfTable(table);
    if (ownerDependsOnRow(entity) || entity.ownership === 'shared') {
      for (const row of rows) this.check(entity, row as Record<string, unknown>, INSERT);
    } else this.check(entity, rows[0] as Record<string, unknown>, INSERT);
    await this.inTransaction(db, async (trx) => {
      const columns = Object.keys(rows[0]!);
      for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
        const chunk = rows.slice(start, start + INSERT_CHUNK).map((row) => {
          const values: Record<string, unknown> = { ...row, hlc: this.hlc.next(), version: 1 };
          if (entity.ownership === 'shared')
            values.fieldHlc = firstFieldClocks(columns, values.hlc as string);
          return values;
        });
        const allColumns = Object.keys(chunk[0]!);
        // Observers get the rows as stored (with column defaults): read back only when watched.
        const watched = this.observers.watches(table);
        const written = await this.shapes.run(
          trx,
          `insertMany|${table}|${chunk.length}|${allColumns.join(',')}|${watched}`,
          chunk.flatMap((values) => allColumns.map((c) => values[c] ?? null)),
          (ph) => {
            const insert = (unguarded(trx) as Loose)
              .insertInto(table)
              .values(
                chunk.map((_, r) =>
                  Object.fromEntries(allColumns.map((c, i) => [c, ph[r * allColumns.length + i]])),
                ),
              );
            return watched ? insert.returningAll() : insert;
          },
        );
        await this.changeLog.logMany(trx, entity, chunk);
        if (watched) {
          for (const row of written as Array<Record<string, unknown>>)
            await this.observers.notifyIn(trx, table, undefined, row);
        }
      }
    });
  }

  /**
   * Updates the fields in `patch` that differ from the stored row. Returns the row after the
   * write (unchanged and unlogged if nothing differed), or undefined if there is no such row.
   * With `expectedVersion`, a stale version is 412 and nothing is written.
   */
  async update<T extends SyncedTable>(
    db: Kdb,
    table: T,
    key: string,
    patch: RowPatch<T>,
    options: { expectedVersion?: number } = {},
  ): Promise<Row<T> | undefined> {
    return this.inTransaction(db, async (trx) => {
      const entity = entityOfTable(table);
      const current = await this.stored(trx, table, entity, key);
      if (!current) return undefined;
      this.check(entity, current);
      if (ownerDependsOnRow(entity)) this.check(entity, { ...current, ...definedOnly(patch) });
      if (options.expectedVersion !== undefined && options.expectedVersion !== current.version) {
        throw new PreconditionFailedError(current.version as number);
      }
      const changed = Object.entries(patch as Record<string, unknown>).filter(
        ([k, v]) => v !== undefined && current[k] !== v,
      );
      if (changed.length === 0) return current as Row<T>;
      this.check(entity, current, { op: 'update', fields: changed.map(([k]) => k) });
      const hlc = this.hlc.next();
      const values: Record<string, unknown> = {
        ...Object.fromEntries(changed),
        hlc,
        version: (current.version as number) + 1,
      };
      if ('updatedAt' in current && !('updatedAt' in values)) values.updatedAt = this.clock.now();
      if (entity.ownership === 'shared') {
        const fields = changed.map(([k]) => k);
        values.fieldHlc = nextFieldClocks(entity, current, fields, hlc, 'updatedAt' in values);
      }
      const columns = Object.keys(values);
      const [written] = (await this.shapes.run(
        trx,
        `update|${table}|${columns.join(',')}`,
        [...columns.map((c) => values[c]), key],
        (ph) =>
          (unguarded(trx) as Loose)
            .updateTable(table)
            .set(Object.fromEntries(columns.map((c, i) => [c, ph[i]])))
            .where(entity.key, '=', ph[columns.length])
            .returningAll(),
      )) as Array<Record<string, unknown>>;
      if (!written) throw new Error(`${table} ${key} vanished inside its own transaction`);
      await this.changeLog.log(trx, entity, 'upsert', written, hlc, current);
      await this.observers.notifyIn(trx, table, current, written);
      return written as Row<T>;
    });
  }

  /**
   * Deletes the row; the change_log row carries the delete to peers. A shared record also gets a
   * sync_tombstone row (same transaction): the delete wins over any later upsert of that id.
   */
  async delete<T extends SyncedTable>(db: Kdb, table: T, key: string): Promise<Row<T> | undefined> {
    return this.inTransaction(db, async (trx) => {
      const entity = entityOfTable(table);
      // The stored row decides (camera source, setting scope) and names the owning site in a
      // refusal: read it first. A standalone edge, which refuses nothing, skips the read.
      let current: Record<string, unknown> | undefined;
      if (this.guard !== allowEveryWrite) {
        current = await this.stored(trx, table, entity, key);
        if (!current) return undefined;
        this.check(entity, current, { op: 'delete' });
      }
      // What references the row goes first (RowObservers.addBeforeDelete: a yard task's events).
      if (this.observers.watchesDeletes(table))
        await this.observers.deletingIn(trx, table, current ?? { [entity.key]: key });
      const [deleted] = (await this.shapes.run(trx, `delete|${table}`, [key], (ph) =>
        (unguarded(trx) as Loose).deleteFrom(table).where(entity.key, '=', ph[0]).returningAll(),
      )) as Array<Record<string, unknown> | undefined>;
      if (!deleted) return undefined;
      const hlc = this.hlc.next();
      if (entity.ownership === 'shared')
        await this.changeLog.tombstone(trx, entity, String(deleted[entity.key]), hlc);
      await this.changeLog.log(trx, entity, 'delete', deleted, hlc);
      await this.observers.notifyIn(trx, table, deleted, undefined);
      return deleted as Row<T>;
    });
  }

  private check(entity: SyncedEntity, row: Record<string, unknown> | undefined, write?: SiteWrite): void {
    const refusal = this.guard(entity, row, write);
    if (refusal) throw refusal;
  }

  /** The stored row with this key, read inside the write's transaction. */
  private async stored(
    trx: Kdb,
    table: SyncedTable,
    entity: SyncedEntity,
    key: string,
  ): Promise<Record<string, unknown> | undefined> {
    // Locked until commit on PostgreSQL (forWrite): the write decides on it (If-Match, what changed).
    const [current] = (await this.shapes.run(trx, `select|${table}`, [key], (ph) =>
      forWrite(trx, (unguarded(trx) as Loose).selectFrom(table).selectAll().where(entity.key, '=', ph[0])),
    )) as Array<Record<string, unknown> | undefined>;
    return current;
  }

  private async inTransaction<R>(db: Kdb, work: (trx: Kdb) => Promise<R>): Promise<R> {
    if (db.isTransaction) return work(db);
    return db.transaction().execute(work);
  }
}

function definedOnly(patch: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
}
