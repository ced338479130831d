import { type Kdb, unguarded } from '../db/database.js';
import type { TableGenerations } from '../db/generations.js';
import { SCHEMA_VERSION } from '../db/migrate.js';
import type { ShapeCache } from '../db/prepared.js';
import {
  entityOfTable,
  NEEDS,
  type SyncedEntity,
  syncedFields,
  WITHDRAWN_WHEN_UNNEEDED,
} from './entities.js';
import type { Hlc } from './hlc.js';
import { dataOfShares, NEW_ROW, type Route, sharedData, type WriteContext } from './unit-shares.js';

/**
 * The peers whose change log gets a row and what each gets of it (routing.ts), read in `db`, the
 * write's transaction: an array at once where lookups are synchronous (SQLite), a promise where
 * they are not (PostgreSQL). `write`: the write the row comes from (default: a new row).
 */
export type PeersFor = (
  entity: SyncedEntity,
  row: Record<string, unknown>,
  db: Kdb,
  write?: WriteContext,
) => Route[] | Promise<Route[]>;

/** Rows per multi-row INSERT: 100 rows x ~12 columns stays far below SQLite's 32,766 bound parameters. */
export const INSERT_CHUNK = 100;

/**
 * The change_log side of a synced write: one row per peer that needs the record (and a delete for a
 * peer that no longer does), the record it names that its receivers need too, the tombstone of a
 * deleted shared record, and the "logged" signal to the sync links. Runs inside the write's
 * transaction, so the row and its log rows commit together (ChangeCapture opens it).
 */
export class ChangeLogWriter {
  private readonly loggedListeners: Array<(peers: ReadonlySet<string>) => void> = [];

  constructor(
    private readonly hlc: Hlc,
    private readonly peersFor: PeersFor,
    private readonly shapes: ShapeCache,
    private readonly generations: TableGenerations,
  ) {}

  onLogged(listener: (peers: ReadonlySet<string>) => void): void {
    this.loggedListeners.push(listener);
  }

  notifyLogged(peers: Iterable<string>): void {
    if (this.loggedListeners.length === 0) return;
    const set = new Set(peers);
    if (set.size === 0) return;
    for (const l of this.loggedListeners) l(set);
  }

  /** Records a deleted shared record; a later delete of the same id keeps the greater HLC. */
  async tombstone(trx: Kdb, entity: SyncedEntity, entityId: string, hlc: string): Promise<void> {
    await this.shapes.run(trx, 'sync_tombstone', [entity.entity, entityId, hlc], ([e, id, h]) =>
      unguarded(trx)
        .insertInto('syncTombstone')
        .values({ entity: e!, entityId: id!, hlc: h! })
        .onConflict((oc) =>
          oc
            .columns(['entity', 'entityId'])
            .doUpdateSet({ hlc: (eb) => eb.ref('excluded.hlc') })
            .where('syncTombstone.hlc', '<', (eb) => eb.ref('excluded.hlc')),
        ),
    );
  }

  async log(
    trx: Kdb,
    entity: SyncedEntity,
    op: 'upsert' | 'delete',
    row: Record<string, unknown>,
    hlc: string,
    previous?: Record<string, unknown>,
  ): Promise<void> {
    this.generations.bump(entity.table);
    const entityId = String(row[entity.key]);
    const write: WriteContext = { op, before: op === 'delete' ? row : previous };
    const routes = await this.peersFor(entity, row, trx, write);
    const peers = routes.map((r) => r.peer);
    // A peer that held the row and no longer needs it (a user's scope moved to other sites) gets a
    // delete, so it does not keep a login it should no longer have.
    const dropped =
      previous && WITHDRAWN_WHEN_UNNEEDED.has(entity.entity)
        ? (await this.peersFor(entity, previous, trx)).map((r) => r.peer).filter((p) => !peers.includes(p))
        : [];
    const deleted = JSON.stringify({ [entity.key]: entityId });
    const dataFor = dataOfShares(entity, row, op);
    const writes: Array<[string, 'upsert' | 'delete', string]> = [
      ...routes.map((r): [string, 'upsert' | 'delete', string] => [r.peer, op, dataFor(r.share)]),
      ...dropped.map((p): [string, 'upsert' | 'delete', string] => [p, 'delete', deleted]),
    ];
    if (writes.length === 0) return;
    if (op === 'upsert' && peers.length > 0) await this.logNeeded(trx, entity, row, peers);
    this.notifyLogged([...peers, ...dropped]);
    for (const [peer, rowOp, rowData] of writes) {
      await this.shapes.run(
        trx,
        'change_log',
        [peer, entity.entity, entityId, rowOp, hlc, this.hlc.origin, SCHEMA_VERSION, rowData],
        ([p, e, id, o, h, origin, v, d]) =>
          unguarded(trx)
            .insertInto('changeLog')
            .values({
              peer: p!,
              entity: e!,
              entityId: id!,
              op: o as 'upsert',
              hlc: h!,
              origin: origin!,
              schemaV: v as unknown as number,
              data: d!,
            }),
      );
    }
  }

  /** The record this row names that its receivers need too (entities.ts NEEDS), logged first. */
  private async logNeeded(
    trx: Kdb,
    entity: SyncedEntity,
    row: Record<string, unknown>,
    peers: readonly string[],
  ): Promise<void> {
    const need = NEEDS[entity.entity];
    const id = need ? row[need.field] : undefined;
    if (!need || typeof id !== 'string') return;
    const needed = (await unguarded(trx)
      .selectFrom(need.table)
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst()) as Record<string, unknown> | undefined;
    if (!needed) return;
    const neededEntity = entityOfTable(need.table);
    const data = JSON.stringify(syncedFields(neededEntity, needed));
    for (const peer of peers) {
      await unguarded(trx)
        .insertInto('changeLog')
        .values({
          peer,
          entity: need.entity,
          entityId: id,
          op: 'upsert',
          hlc: String(needed.hlc),
          origin: this.hlc.origin,
          schemaV: SCHEMA_VERSION,
          data,
        })
        .execute();
    }
  }

  async logMany(trx: Kdb, entity: SyncedEntity, written: Array<Record<string, unknown>>): Promise<void> {
    this.generations.bump(entity.table);
    const routesOfRows = await Promise.all(written.map((row) => this.peersFor(entity, row, trx, NEW_ROW)));
    const entries = written.flatMap((row, i) =>
      routesOfRows[i]!.map(({ peer, share }) => [
        peer,
        entity.entity,
        String(row[entity.key]),
        'upsert',
        row.hlc,
        this.hlc.origin,
        SCHEMA_VERSION,
        JSON.stringify(sharedData(entity, row, share)),
      ]),
    );
    this.notifyLogged(entries.map((e) => e[0] as string));
    for (let start = 0; start < entries.length; start += INSERT_CHUNK) {
      const chunk = entries.slice(start, start + INSERT_CHUNK);
      await this.shapes.run(trx, `change_log|${chunk.length}`, chunk.flat(), (ph) =>
        unguarded(trx)
          .insertInto('changeLog')
          .values(
            chunk.map((_, r) => {
              const p = ph.slice(r * 8, r * 8 + 8);
              return {
                peer: p[0]!,
                entity: p[1]!,
                entityId: p[2]!,
                op: p[3] as 'upsert',
                hlc: p[4]!,
                origin: p[5]!,
                schemaV: p[6] as unknown as number,
                data: p[7]!,
              };
            }),
          ),
      );
    }
  }
}
