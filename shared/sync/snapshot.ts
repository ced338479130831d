import { SCHEMA_VERSION } from '../db/migrate.js';
import { CHANGE_LOG_ORDER_LOCK_KEY } from '../db/postgres-ddl.js';
import { type SqlStatement, type SqlWork, sqlRows, sqlValue, statement } from '../db/sql-work.js';
import { type RowLookups, routeAtCloud } from './cloud-routing-rule.js';
import type { SyncDeps } from './deps.js';
import { SYNCED_ENTITIES, type SyncedEntity, toSnake } from './entities.js';
import { parseHlc } from './hlc.js';
import { topSeqWork } from './outbox.js';
import type { Route } from './routing.js';
import { toCamel } from './row-sql.js';
import { sharedData } from './unit-shares.js';
import { workRunnerOf } from './work-runner.js';

/**
 * Synced entities in the order their rows may be inserted: every foreign key points to an entity
 * earlier in the list (movement before gate_actuation: an actuation names its movement; a movement
 * is written before its actuation and never updated with it).
 */
export const SNAPSHOT_ORDER = [
  'yard',
  'location',
  'gate',
  'carrier',
  'integration',
  'camera',
  'user',
  'api_key',
  'setting',
  'driver',
  'truck',
  'trailer',
  'attachment',
  'truck_inspection',
  'movement',
  'gate_actuation',
  'yard_task',
  'task_event',
  'driver_session',
  'session_location',
  'push_token',
  'scheduling_config',
  'load_type',
  'appointment',
  'appointment_event',
] as const;

/** Rows read per query while writing a snapshot. */
const PAGE = 2000;

/**
 * Cloud: appends to the site's change_log an upsert of every current row the site needs (the
 * routing rules of cloud-routing-rule.ts, as if the site were registered already and every row new: a truck
 * or trailer in another site's yard as its identity only), in dependency order. For a
 * new site, or one whose cursor is older than the pruned log. The edge applies it with the ordinary
 * rules: cloud-owned rows replace its copies, its own rows are inserted if missing, shared rows
 * merge. One transaction, on either database.
 *
 * Returns the seq range written: `from` is the first seq, `to` the last (`to = from - 1` when
 * there was nothing to write: `from` is then the seq after the last one taken, so the site can
 * resume there). Rows the site holds that the cloud no longer has are not deleted.
 */
export async function writeSiteSnapshot(
  deps: Pick<SyncDeps, 'db' | 'changes'>,
  siteId: string,
): Promise<{ from: number; to: number; rows: number }> {
  const result = await workRunnerOf(deps).transaction(() => snapshotWork(siteId));
  if (result.rows > 0) deps.changes.notifyLogged([siteId]);
  return result;
}

/**
 * PostgreSQL: the change-log order lock (migration 0001's twin) for the whole snapshot, taken
 * first: a transaction that logged a change before it has committed (its change is in the rows
 * read here and its seq is below ours), one that logs after it waits for our commit (its seq comes
 * after the snapshot's). And an empty snapshot's `from` is read with no seq still in flight.
 * SQLite: the caller's transaction already keeps every other writer out.
 */
const lockChangeLog = statement('snapshot|lock', 'value', (dialect) =>
  dialect === 'postgres' ? `SELECT pg_advisory_xact_lock(${CHANGE_LOG_ORDER_LOCK_KEY})` : 'SELECT 1',
);
const selectYards = statement('snapshot|yards', 'rows', 'SELECT id, site_id FROM yard');
const insertLog = statement(
  'snapshot|insert',
  'value',
  "INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data) VALUES (?, ?, ?, 'upsert', ?, ?, ?, ?) RETURNING seq",
);
const yardOfSession = statement(
  'snapshot|session-yard',
  'value',
  'SELECT yard_id FROM driver_session WHERE id = ?',
);
const yardsOfIntegration = statement(
  'snapshot|integration-yards',
  'rows',
  'SELECT DISTINCT yard_id FROM camera WHERE integration_id = ?',
);
const refStatements = new Map<string, SqlStatement>();
const pageStatements = new Map<string, SqlStatement>();

/** A lookup routeAtCloud asked for that is not answered yet: read it, then route the row again. */
class NeedLookup {
  constructor(
    readonly key: string,
    readonly read: () => SqlWork<unknown>,
  ) {}
}

function* snapshotWork(siteId: string): SqlWork<{ from: number; to: number; rows: number }> {
  yield* sqlValue(lockChangeLog, []);
  const sites = [siteId];
  const siteOfYard = new Map(
    (yield* sqlRows(selectYards, [])).map((r) => [String(r.id), String(r.site_id)] as const),
  );
  // routeAtCloud's lookups are synchronous: each answer is read on first need (NeedLookup) and kept.
  const answers = new Map<string, unknown>();
  const ask = <T>(key: string, read: () => SqlWork<unknown>): T => {
    if (!answers.has(key)) throw new NeedLookup(key, read);
    return answers.get(key) as T;
  };
  const lookups: RowLookups = {
    yardOfSession: (id) =>
      ask<string | undefined>(`session|${id}`, () => sqlValue(yardOfSession, [id])) ?? undefined,
    yardsUsingIntegration: (id) =>
      ask<string[]>(`integration|${id}`, function* () {
        return (yield* sqlRows(yardsOfIntegration, [id])).map((r) => String(r.yard_id));
      }),
    yardOfRef: (table, id) =>
      ask<string | undefined>(`ref|${table}|${id}`, () => sqlValue(refStatement(table), [id])) ?? undefined,
  };
  const route = function* (entity: SyncedEntity, row: Record<string, unknown>): SqlWork<Route[]> {
    for (;;) {
      try {
        return routeAtCloud(entity, row, sites, (y) => siteOfYard.get(y), lookups);
      } catch (err) {
        if (!(err instanceof NeedLookup)) throw err;
        answers.set(err.key, yield* err.read());
      }
    }
  };
  let from = 0;
  let to = 0;
  let rows = 0;
  for (const name of SNAPSHOT_ORDER) {
    const entity = SYNCED_ENTITIES.find((e) => e.entity === name) as SyncedEntity;
    const page = pageStatement(entity);
    const keyField = entity.key;
    for (let after: unknown = null; ; ) {
      const raws = yield* sqlRows(page, [after]);
      if (raws.length === 0) break;
      after = raws.at(-1)!.__page;
      for (const raw of raws) {
        const row = fieldsOf(raw);
        // What the site gets of the row (a unit in another site's yard: its identity only).
        const share = (yield* route(entity, row)).find((r) => r.peer === siteId)?.share;
        if (share === undefined) continue;
        const hlc = String(row.hlc);
        const seq = Number(
          yield* sqlValue(insertLog, [
            siteId,
            entity.entity,
            String(row[keyField]),
            hlc,
            parseHlc(hlc).origin,
            SCHEMA_VERSION,
            JSON.stringify(sharedData(entity, row, share)),
          ]),
        );
        to = seq;
        if (from === 0) from = seq;
        rows += 1;
      }
    }
  }
  if (rows === 0) {
    from = (yield* topSeqWork()) + 1;
    to = from - 1;
  }
  return { from, to, rows };
}

/** A stored row (snake_case columns, the paging column left out) -> camelCase fields. */
function fieldsOf(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(raw)) if (column !== '__page') out[toCamel(column)] = value;
  return out;
}

/**
 * A page of a table's rows after the last one read, in insertion order where the database has one
 * (SQLite's rowid), else by key (PostgreSQL: ids are UUIDv7, ordered by creation time; the one
 * table that points to itself, movement's corrections, names an older movement). A null `after`
 * starts the first page.
 */
function pageStatement(entity: SyncedEntity): SqlStatement {
  let page = pageStatements.get(entity.entity);
  if (!page) {
    const table = toSnake(entity.table);
    const key = toSnake(entity.key);
    page = statement(`snapshot|page|${table}`, 'rows', (dialect) => {
      const order = dialect === 'postgres' ? `"${key}"` : 'rowid';
      const start = dialect === 'postgres' ? "''" : '0';
      return `SELECT ${order} AS "__page", * FROM "${table}" WHERE ${order} > coalesce(?, ${start}) ORDER BY ${order} LIMIT ${PAGE}`;
    });
    pageStatements.set(entity.entity, page);
  }
  return page;
}

function refStatement(table: string): SqlStatement {
  let ref = refStatements.get(table);
  if (!ref) {
    ref = statement(`snapshot|ref|${table}`, 'value', `SELECT yard_id FROM "${table}" WHERE id = ?`);
    refStatements.set(table, ref);
  }
  return ref;
}
