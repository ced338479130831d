import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { sql } from 'kysely';
import { NoRelays } from '../../cloud/no-relays.js';
import { cloudSync } from '../../cloud/sync/index.js';
import { SimulatedGates } from '../../edge/hardware/simulated-gates.js';
import { edgeSync } from '../../edge/sync/index.js';
import { createApp, type YardApp } from '../../shared/app.js';
import type { Principal } from '../../shared/auth/principal.js';
import { NodeOnvifClient } from '../../shared/cameras/onvif-client.js';
import { CAMERA_PROVIDER_KINDS } from '../../shared/cameras/providers/index.js';
import { loadConfig } from '../../shared/config.js';
import type { AppDatabase } from '../../shared/db/database.js';
import { sqliteOf } from '../../shared/db/database.js';
import { openAppDatabase } from '../../shared/db/open-app-database.js';
import { createLogger } from '../../shared/log.js';
import { DriverCreate } from '../../shared/modules/drivers/schema.js';
import { MovementCreate } from '../../shared/modules/movements/schema.js';
import { SiteRepo } from '../../shared/modules/sync/sites.js';
import { LocationCreate } from '../../shared/modules/yards/location-schema.js';
import { YardCreate } from '../../shared/modules/yards/schema.js';
import { ChangeApplier } from '../../shared/sync/applier.js';
import { entityChecksums, entityChecksumsPostgres } from '../../shared/sync/checksum.js';
import { Batch, decode } from '../../shared/sync/protocol.js';
import { decodeBatchPayload } from '../../shared/sync/wire-encoding.js';
import { changeLogRows, type WorkloadRefs, writeOfflineWork } from './sync-workload.js';

/**
 * Child process of the sync benchmarks: one edge or cloud app (createApp on its own SQLite file in
 * YARD_DATA_DIR, or for a cloud on PostgreSQL the database of YARD_DATABASE_URL, as the cloud process
 * opens it; the real sync runtime from edge/sync or cloud/sync over mqtt.js to YARD_MQTT_URL),
 * driven by the parent over IPC: `{id, cmd, args}` is answered with `{id, result}` or `{id, error}`.
 * The app is built at boot but not started: `start` starts it (links up), `stop` stops it (link down),
 * `reopen` builds a fresh app on the same database as a restarted process would.
 * Times in answers are epoch milliseconds with sub-millisecond precision.
 */
const role = process.env.YARD_ROLE === 'cloud' ? 'cloud' : 'edge';
const dataDir = process.env.YARD_DATA_DIR;
if (!dataDir) throw new Error('YARD_DATA_DIR is required');
mkdirSync(dataDir, { recursive: true });
const now = () => performance.timeOrigin + performance.now();

async function build(): Promise<{ yard: YardApp; db: AppDatabase }> {
  const config = loadConfig(process.env, { validateResponses: false });
  // SQLite in the data directory, or PostgreSQL (migrated) when YARD_DATABASE_URL is set.
  const db = await openAppDatabase(config);
  const yard = createApp({
    db,
    config,
    // The app's own log at YARD_LOG_LEVEL (warnings by default): a benchmark shows what went wrong.
    log: createLogger({ ...config.log }),
    gates: role === 'cloud' ? new NoRelays() : new SimulatedGates(undefined, 0),
    cameras: {
      onvif: new NodeOnvifClient({ probeAddress: '127.0.0.1', probePort: 9 }),
      providers: CAMERA_PROVIDER_KINDS,
    },
    sync: role === 'cloud' ? cloudSync() : edgeSync(),
  });
  return { yard, db };
}

let node = await build();
let started = false;
const core = () => node.yard.core;

async function stopApp(): Promise<void> {
  if (started) await node.yard.stop();
  started = false;
}

/** The cloud's master data for one site: the site, its yard, spots and yard drivers. */
async function seedSite(args: { siteId: string; drivers: number; locations: number }): Promise<unknown> {
  const { services, kysely } = core();
  const sites = new SiteRepo(kysely);
  if (!(await sites.get(args.siteId))) {
    await sites.create({ id: args.siteId, name: `Site ${args.siteId}`, password: 'bench-site-password' });
  }
  await services.auth.ensureAdmin();
  const staff = await staffPrincipal();
  const code =
    args.siteId
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(-8)
      .toUpperCase() || 'Y';
  const yard = await services.yards.create(
    staff,
    YardCreate.parse({ code, name: `Yard ${args.siteId}`, timeZone: 'UTC', siteId: args.siteId }),
  );
  const locationIds: string[] = [];
  for (let k = 0; k < args.locations; k++) {
    const loc = await services.yards.locations.create(
      staff,
      yard.id,
      LocationCreate.parse({ kind: 'spot', name: `S-${k}` }),
    );
    locationIds.push(loc.id);
  }
  const driverIds: string[] = [];
  for (let k = 0; k < args.drivers; k++) {
    const driver = await services.drivers.create(
      DriverCreate.parse({
        kind: 'yard',
        firstName: 'Bench',
        lastName: `Driver ${k}`,
        driverCode: `${code}${k}`.slice(0, 20),
      }),
    );
    driverIds.push(driver.id);
  }
  return { yardId: yard.id, locationIds, driverIds, staff } satisfies WorkloadRefs;
}

async function staffPrincipal(): Promise<Principal> {
  const admin = await core()
    .kysely.selectFrom('appUser')
    .select(['id', 'username'])
    .where('role', '=', 'admin')
    .orderBy('createdAt')
    .executeTakeFirst();
  if (!admin) throw new Error('no admin user here (yet)');
  return { kind: 'user', id: admin.id, name: admin.username, role: 'admin', yardIds: null };
}

/** Rows of a synced table with this key (0 or 1), read straight from SQLite. */
function has(table: string, id: string): boolean {
  return (
    sqliteOf(core().db, 'the sync benchmark').prepare(`SELECT 1 FROM "${table}" WHERE id = ?`).get(id) !==
    undefined
  );
}

/** Tables being watched: id -> when this process first saw the row. */
const watched = new Map<string, Map<string, number>>();

/**
 * Notes the arrival time of every new row of a table: polls `rowid > last` every millisecond (a
 * cheap range read), so an arrival is timed to within about a millisecond of its commit.
 */
function watchTable(table: string): void {
  if (watched.has(table)) return;
  const seen = new Map<string, number>();
  watched.set(table, seen);
  const stmt = sqliteOf(core().db, 'the sync benchmark')
    .prepare(`SELECT rowid, id FROM "${table}" WHERE rowid > ? ORDER BY rowid`)
    .raw();
  let last = Number(
    sqliteOf(core().db, 'the sync benchmark')
      .prepare(`SELECT coalesce(max(rowid), 0) FROM "${table}"`)
      .pluck()
      .get(),
  );
  const poll = () => {
    const at = now();
    for (const [rowid, id] of stmt.all(last) as Array<[number, string]>) {
      last = rowid;
      if (!seen.has(id)) seen.set(id, at);
    }
    timer = setTimeout(poll, 1);
  };
  let timer = setTimeout(poll, 1);
  timer.unref();
}

/** Rows of a table, on either database (the cloud's figures and checks). */
async function countRows(table: 'change_log' | 'dead_letter'): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(
    core().kysely,
  );
  return Number(rows[0]?.n ?? 0);
}

const commands: Record<string, (args: any) => unknown> = {
  start: async () => {
    const at = now();
    await node.yard.start();
    started = true;
    return { at, ready: now() };
  },
  stop: () => stopApp(),
  reopen: async () => {
    await stopApp();
    await node.db.close();
    node = await build();
  },
  seedSite,
  has: (args: { table: string; ids: string[] }) => args.ids.every((id) => has(args.table, id)),
  staff: () => staffPrincipal(),
  generate: async (args: { refs: WorkloadRefs; target: number }) => {
    const t0 = now();
    const out = await writeOfflineWork(core(), args.refs, { peer: 'cloud', target: args.target });
    return { ...out, ms: now() - t0 };
  },
  logRows: (args: { peer: string }) => changeLogRows(core(), args.peer),
  logTotal: () => countRows('change_log'),
  topSeq: () =>
    Number(
      sqliteOf(core().db, 'the sync benchmark').prepare('SELECT max(seq) FROM change_log').pluck().get() ?? 0,
    ),
  queued: () => core().sync.runtime?.queued() ?? Promise.resolve(-1),
  /**
   * Waits until the peer has acknowledged every row of its log: polls the stored acknowledged
   * position every 2 ms (a point read; counting the queue that often would load the edge itself),
   * then confirms with the runtime's own queue count.
   */
  drained: async (args: { peer: string; timeoutMs: number }) => {
    const sqlite = sqliteOf(core().db, 'the sync benchmark');
    const top = Number(
      sqlite.prepare('SELECT max(seq) FROM change_log WHERE peer = ?').pluck().get(args.peer) ?? 0,
    );
    const acked = sqlite.prepare('SELECT acked_seq FROM sync_cursor WHERE peer = ?').pluck();
    const deadline = now() + args.timeoutMs;
    while (now() < deadline) {
      if (Number(acked.get(args.peer) ?? 0) >= top) {
        const at = now();
        return { at, queued: await core().sync.runtime?.queued() };
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    return { at: null, queued: await core().sync.runtime?.queued() };
  },
  /** The applied position for a peer (sync_cursor.applied_remote_seq). */
  applied: (args: { peer: string }) =>
    Number(
      sqliteOf(core().db, 'the sync benchmark')
        .prepare('SELECT applied_remote_seq FROM sync_cursor WHERE peer = ?')
        .pluck()
        .get(args.peer) ?? 0,
    ),
  deadLetters: () => countRows('dead_letter'),
  checksums: () => {
    const db = core().db;
    return db.dialect === 'postgres' ? entityChecksumsPostgres(db.pool) : entityChecksums(db.sqlite);
  },
  cpu: () => process.cpuUsage(),
  /** A gate check-in of a new trailer, as POST /api/movement makes it; answers when committed. */
  writeMovement: async (args: { yardId: string; number: string; staff: Principal }) => {
    const created = await core().services.movements.create(
      MovementCreate.parse({ yardId: args.yardId, direction: 'in', trailer: { number: args.number } }),
      args.staff,
    );
    return { id: created.id, at: now() };
  },
  /** A dispatcher's new yard task, as POST /api/yard-task makes it; answers when committed. */
  writeTask: async (args: { yardId: string; staff: Principal; notes: string }) => {
    const created = await core().services.tasks.create(args.staff, {
      yardId: args.yardId,
      type: 'other',
      priority: 1,
      notes: args.notes,
    });
    if ('items' in created) throw new Error('one task asked, a batch answered');
    return { id: created.id, at: now() };
  },
  /** The rows of the peer's log it has not acknowledged, as [entity, id, op, hlc, schemaV, data] JSON. */
  exportLog: (args: { peer: string; file: string }) => {
    const sqlite = sqliteOf(core().db, 'the sync benchmark');
    const acked = Number(
      sqlite.prepare('SELECT acked_seq FROM sync_cursor WHERE peer = ?').pluck().get(args.peer) ?? 0,
    );
    const rows = sqlite
      .prepare(
        'SELECT entity, entity_id, op, hlc, schema_v, data FROM change_log WHERE peer = ? AND seq > ? ORDER BY seq',
      )
      .raw()
      .all(args.peer, acked);
    writeFileSync(args.file, JSON.stringify(rows));
    return rows.length;
  },
  /** A consistent copy of the database (better-sqlite3 online backup). */
  backup: (args: { file: string }) =>
    sqliteOf(core().db, 'the sync benchmark')
      .backup(args.file)
      .then(() => undefined),
  /**
   * Applies batch payloads (a file of uint32 length + bytes, as sync-catchup.ts writes them) with
   * the real ChangeApplier, in groups of `group` per transaction as the link does for a backlog:
   * the receiver's cost without MQTT. Decoding (inflate, JSON + zod) and applying are timed apart.
   */
  applyOnly: async (args: { file: string; peer: string; group: number }) => {
    const all = readFileSync(args.file);
    const payloads: Buffer[] = [];
    for (let at = 0; at < all.length; at += 4 + all.readUInt32BE(at)) {
      payloads.push(all.subarray(at + 4, at + 4 + all.readUInt32BE(at)));
    }
    const t0 = now();
    // As the receiver takes them: inflated when they went compressed (wire-encoding.ts), then parsed.
    const texts = await Promise.all(payloads.map((p) => decodeBatchPayload(p)));
    const batches = texts.map((t) => (t.ok ? decode(Batch, t.text) : undefined));
    const t1 = now();
    if (batches.some((b) => b === undefined)) throw new Error('a payload did not decode');
    const applier = new ChangeApplier(core());
    let rows = 0;
    for (let i = 0; i < batches.length; i += args.group) {
      const group = batches.slice(i, i + args.group) as Batch[];
      applier.applyMany(args.peer, group);
      rows += group.reduce((n, b) => n + b.rows.length, 0);
    }
    const t2 = now();
    return { batches: batches.length, rows, decodeMs: t1 - t0, applyMs: t2 - t1 };
  },
  watch: (args: { table: string }) => watchTable(args.table),
  seen: (args: { table: string }) => Object.fromEntries(watched.get(args.table) ?? []),
  status: () => core().sync.runtime?.status(),
};

process.on('message', async (msg: { id: number; cmd: string; args?: unknown }) => {
  if (msg.cmd === 'exit') {
    await stopApp();
    await node.db.close();
    process.exit(0);
  }
  const handler = commands[msg.cmd];
  try {
    if (!handler) throw new Error(`unknown command ${msg.cmd}`);
    process.send?.({ id: msg.id, result: await handler(msg.args ?? {}) });
  } catch (err) {
    process.send?.({ id: msg.id, error: (err as Error).stack ?? String(err) });
  }
});
process.send?.({ ready: true, pid: process.pid });
