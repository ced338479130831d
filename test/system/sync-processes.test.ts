import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionSite } from '../../cloud/provision-site.js';
import { loadConfig } from '../../shared/config.js';
import { openDatabase } from '../../shared/db/database.js';
import { SCHEMA_VERSION } from '../../shared/db/migrate.js';
import { entityChecksums } from '../../shared/sync/checksum.js';
import { Batch, PROTOCOL_V } from '../../shared/sync/protocol.js';
import { Client } from '../helpers/http.js';
import { MOSQUITTO_PASSWD, MosquittoProcess, mosquittoInstalled } from '../helpers/mosquitto-process.js';
import { AppProcess, freePort, readDb } from '../helpers/sync-processes.js';
import { cloudWork, driverLogin, edgeWork, pings, type SiteRefs, visits } from '../helpers/sync-traffic.js';
import { ADMIN, loginAdmin } from '../helpers/test-app.js';
import { waitFor } from '../helpers/wait-for.js';
import { cloudMasterData } from '../integration/sync/link-fixture.js';

/**
 * The faults of docs/sync.md with real processes: Debian's Mosquitto (deploy config, password file, ACL,
 * persistence), the cloud (`cloud/main.ts`) and a provisioned edge (`edge/main.ts` with the
 * provisioned config file), each on its own database file, driven over HTTP. Processes are
 * SIGKILLed in the middle of draining a queue; the databases are compared at the end.
 * Acks time out after 2 s here (10 s in production) so that recoveries do not dominate the run.
 */
if (!mosquittoInstalled) console.warn('SKIPPED: mosquitto is not installed (apt-get install mosquitto).');

const dir = mkdtempSync(join(tmpdir(), 'yard-sync-processes-'));
const paths = {
  cloud: join(dir, 'cloud'),
  edge: join(dir, 'edge'),
  broker: join(dir, 'broker'),
  out: join(dir, 'out'),
  passwd: join(dir, 'broker', 'passwd'),
};
const cloudDb = join(paths.cloud, 'yard.db');
const edgeDb = join(paths.edge, 'yard.db');
const CLOUD_PASSWORD = 'cloud-password-for-sync-processes';
const ACK_TIMEOUT_MS = '2000';

let mosquitto: MosquittoProcess;
let mqttPort = 0;
let cloud: AppProcess;
let edge: AppProcess;
let cloudApi: Client;
let edgeApi: Client;
let s: SiteRefs;

const scalar = (db: Database.Database, sql: string, ...args: unknown[]) =>
  Number(
    db
      .prepare(sql)
      .pluck()
      .get(...args) ?? 0,
  );

/** Both directions' positions, read from the two database files. */
function positions() {
  const e = readDb(edgeDb, (db) => ({
    top: scalar(db, "SELECT coalesce(max(seq), 0) FROM change_log WHERE peer = 'cloud'"),
    acked: scalar(db, "SELECT coalesce(max(acked_seq), 0) FROM sync_cursor WHERE peer = 'cloud'"),
    applied: scalar(db, "SELECT coalesce(max(applied_remote_seq), 0) FROM sync_cursor WHERE peer = 'cloud'"),
  }));
  const c = readDb(cloudDb, (db) => ({
    top: scalar(db, "SELECT coalesce(max(seq), 0) FROM change_log WHERE peer = 'site-a'"),
    acked: scalar(db, "SELECT coalesce(max(acked_seq), 0) FROM sync_cursor WHERE peer = 'site-a'"),
    applied: scalar(db, "SELECT coalesce(max(applied_remote_seq), 0) FROM sync_cursor WHERE peer = 'site-a'"),
  }));
  return {
    up: { top: e.top, applied: c.applied, acked: e.acked },
    down: { top: c.top, applied: e.applied, acked: c.acked },
  };
}

/** Nothing left to send or acknowledge either way. */
async function drained(timeoutMs = 60_000): Promise<void> {
  let last = positions();
  await waitFor(
    () => {
      last = positions();
      const { up, down } = last;
      return up.applied >= up.top && up.acked >= up.top && down.applied >= down.top && down.acked >= down.top;
    },
    { timeoutMs, intervalMs: 200, what: () => `both queues drained (${JSON.stringify(last)})` },
  );
}

/** Same rows per entity (count and checksum), the same visits, no dead letters or parked rows. */
function expectSameDatabases(): void {
  const read = (file: string) =>
    readDb(file, (db) => ({
      sums: entityChecksums(db),
      visits: visits(db),
      dead: scalar(db, 'SELECT count(*) FROM dead_letter'),
      pending: scalar(db, 'SELECT count(*) FROM sync_pending'),
    }));
  const atCloud = read(cloudDb);
  const atEdge = read(edgeDb);
  expect(atEdge.sums).toEqual(atCloud.sums);
  expect(atEdge.visits.length).toBeGreaterThan(0);
  expect(atCloud.visits).toEqual(atEdge.visits);
  expect({ cloud: atCloud.dead, edge: atEdge.dead }).toEqual({ cloud: 0, edge: 0 });
  expect({ cloud: atCloud.pending, edge: atEdge.pending }).toEqual({ cloud: 0, edge: 0 });
}

/**
 * Offline work at the edge (about `rows` changes: phone uploads of 500 pings, two at a time, with
 * gate traffic and a task every 20,000 rows) and the office's work at the cloud meanwhile.
 */
async function offlineWork(rows: number, tag: string): Promise<void> {
  const uploads = Math.ceil(rows / 500);
  for (let i = 0; i < uploads; i += 2) {
    await Promise.all([pings(s, 1, 500), pings(s, 1, 500)]);
    if (i % 40 === 0) {
      await Promise.all([edgeWork(edgeApi, s, `${tag}x${i}`), cloudWork(cloudApi, s, `${tag}x${i}`)]);
    }
  }
}

async function restartEdge(): Promise<void> {
  await edge.start();
  edgeApi = new Client(edge.url, edgeApi.token);
  s.driver = edgeApi.as(s.driver.token);
}

describe.skipIf(!mosquittoInstalled)('sync between real processes through Mosquitto', () => {
  beforeAll(async () => {
    for (const p of [paths.cloud, paths.edge, paths.broker, paths.out]) mkdirSync(p, { recursive: true });
    mqttPort = await freePort();
    const mqttUrl = `mqtt://127.0.0.1:${mqttPort}`;
    // Provisioning at the cloud's database before the cloud starts, as an operator does.
    const db = openDatabase(cloudDb);
    const config = loadConfig({}, { role: 'cloud', dataDir: paths.cloud });
    for (const siteId of ['site-a', 'site-b']) {
      await provisionSite(db.kysely, config, {
        siteId,
        mqttUrl,
        outDir: paths.out,
        mosquittoPasswd: paths.passwd,
      });
    }
    db.close();
    execFileSync(MOSQUITTO_PASSWD, ['-b', paths.passwd, 'cloud', CLOUD_PASSWORD]);
    mosquitto = new MosquittoProcess({ dir: paths.broker, port: mqttPort, passwdFile: paths.passwd });
    await mosquitto.start();

    const common = { YARD_LOG_LEVEL: 'warn', YARD_SYNC_ACK_TIMEOUT_MS: ACK_TIMEOUT_MS };
    cloud = new AppProcess('cloud', 'cloud/main.ts', await freePort(), {
      ...common,
      YARD_ROLE: 'cloud',
      YARD_DATA_DIR: paths.cloud,
      YARD_MQTT_URL: mqttUrl,
      YARD_MQTT_USERNAME: 'cloud',
      YARD_MQTT_PASSWORD: CLOUD_PASSWORD,
      YARD_ADMIN_USER: ADMIN.username,
      YARD_ADMIN_PASSWORD: ADMIN.password,
    });
    edge = new AppProcess('edge', 'edge/main.ts', await freePort(), {
      ...common,
      YARD_CONFIG_FILE: join(paths.out, 'site-a.edge.json'),
      YARD_DATA_DIR: paths.edge,
      // A week of one driver's location batches is sent in seconds here: past a phone's request
      // budget per minute (docs/api.md "Limits on the driver routes"), which this test is not about.
      YARD_DRIVER_REQUESTS: '1000000',
    });
    await Promise.all([cloud.start(), edge.start()]);
    cloudApi = new Client(cloud.url, await loginAdmin(cloud.url));
    const m = await cloudMasterData(cloudApi, 'site-a');
    // The edge's users come from the cloud: log in once the admin and the yard arrived.
    await waitFor(
      () =>
        readDb(
          edgeDb,
          (db) =>
            db.prepare('SELECT 1 FROM app_user WHERE username = ?').get(ADMIN.username) &&
            db.prepare('SELECT 1 FROM driver WHERE id = ?').get(m.driverId),
        ),
      { timeoutMs: 20_000, what: "the cloud's admin and driver at the edge" },
    );
    edgeApi = new Client(edge.url, await loginAdmin(edge.url));
    const gate = await edgeApi.post(`/api/yard/${m.yardId}/gate`, { name: 'Main gate', direction: 'both' });
    expect(gate.status, gate.text).toBe(201);
    const driver = await driverLogin(edgeApi, m.driverCode);
    const session = await driver.post('/api/yard-task/driver/session/start', { yardId: m.yardId });
    expect(session.status, session.text).toBe(201);
    s = { ...m, siteId: 'site-a', gateId: gate.body.id, driver };
  }, 90_000);

  afterAll(async () => {
    for (const p of [edge, cloud]) await p?.kill().catch(() => undefined);
    await mosquitto?.kill().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('carries realistic work both ways', async () => {
    await Promise.all([
      edgeWork(edgeApi, s, 'START', { locationBatches: 2, points: 500 }),
      cloudWork(cloudApi, s, 'START'),
    ]);
    await drained();
    expectSameDatabases();
  }, 60_000);

  it('SIGKILLs the edge, then Mosquitto, then the cloud while ~50,000 changes drain; nothing lost, nothing twice', async () => {
    await mosquitto.stop();
    await offlineWork(50_000, 'Q');
    const top = positions().up.top;
    expect(top).toBeGreaterThan(50_000);
    await mosquitto.start();

    const appliedOver = async (rows: number, what: string) => {
      await waitFor(() => positions().up.applied >= rows, { timeoutMs: 60_000, intervalMs: 20, what });
      const at = positions().up;
      // In the middle of the drain: applied some, not all.
      expect(at.applied, what).toBeLessThan(top);
      console.log(`${what}: the cloud has applied ${at.applied} of ${top}; killing the next process`);
      return at.applied;
    };
    await appliedOver(2_000, 'the cloud applying the queue');
    await edge.kill();
    await restartEdge();
    await appliedOver(positions().up.applied + 8_000, 'the drain going on after the edge restarted');
    await mosquitto.kill();
    await mosquitto.start();
    await appliedOver(positions().up.applied + 8_000, 'the drain going on after the broker restarted');
    await cloud.kill();
    await cloud.start();
    cloudApi = new Client(cloud.url, await loginAdmin(cloud.url));
    // Work on both sides after the restarts, then everything is there once.
    await Promise.all([edgeWork(edgeApi, s, 'AFTERKILL'), cloudWork(cloudApi, s, 'AFTERKILL')]);
    await drained(90_000);
    expectSameDatabases();
  }, 180_000);

  it("never applies a batch a site forges on another site's topic (Mosquitto's ACL)", async () => {
    const sample = readDb(edgeDb, (db) => ({
      stream: db.prepare("SELECT value FROM sync_meta WHERE name = 'stream'").pluck().get() as string,
      row: db
        .prepare("SELECT hlc, data FROM change_log WHERE peer = 'cloud' AND entity = 'trailer' LIMIT 1")
        .get() as { hlc: string; data: string },
    }));
    const from = positions().up.applied + 1;
    const forged = JSON.parse(sample.row.data) as Record<string, unknown>;
    const id = '01900000-0000-7000-8000-00000000f0f0';
    const batch = {
      v: PROTOCOL_V,
      site: 'site-a',
      stream: sample.stream,
      from,
      to: from,
      schemaV: SCHEMA_VERSION,
      rows: [
        {
          seq: from,
          entity: 'trailer',
          id,
          op: 'upsert',
          hlc: sample.row.hlc,
          data: { ...forged, id, number: 'FORGED-1' },
        },
      ],
    };
    // A batch the cloud would apply if it got it: well-formed, next in site-a's stream.
    expect(Batch.safeParse(batch).success).toBe(true);
    const password = JSON.parse(readFileSync(join(paths.out, 'site-b.edge.json'), 'utf8')).mqtt.password;
    const b = await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, {
      username: 'site-b',
      password,
      clientId: 'forger-site-b',
      protocolVersion: 4,
      reconnectPeriod: 0,
    });
    await b.publishAsync('yards/site-a/up/changes', JSON.stringify(batch), { qos: 1 });
    await b.endAsync();
    // The real site's next change arrives after it: the forged one never did.
    await edgeWork(edgeApi, s, 'AFTERFORGE', { checkIns: 1 });
    await drained();
    const atCloud = readDb(cloudDb, (db) => ({
      forged: scalar(db, 'SELECT count(*) FROM trailer WHERE id = ?', id),
      stream: db.prepare("SELECT remote_stream FROM sync_cursor WHERE peer = 'site-a'").pluck().get(),
    }));
    expect(atCloud).toEqual({ forged: 0, stream: sample.stream });
    expectSameDatabases();
  }, 60_000);

  it('a week offline: ~150,000 changes made at the edge while Mosquitto is down drain after it is back', async () => {
    await mosquitto.stop();
    const before = positions().up.top;
    const made = performance.now();
    await offlineWork(150_000, 'WEEK');
    const queued = positions().up.top - before;
    expect(queued).toBeGreaterThanOrEqual(150_000);
    console.log(
      `a week offline: ${queued} changes made over HTTP in ${Math.round(performance.now() - made)} ms`,
    );
    const started = performance.now();
    await mosquitto.start();
    await drained(120_000);
    const ms = performance.now() - started;
    console.log(
      `a week offline: ${queued} changes drained in ${Math.round(ms)} ms (${Math.round(queued / (ms / 1000))} rows/s)`,
    );
    expectSameDatabases();
  }, 240_000);

  it('stops both processes cleanly; the database files hold the same rows', async () => {
    expect(await edge.stop()).toBe(0);
    expect(await cloud.stop()).toBe(0);
    expectSameDatabases();
  }, 60_000);
});
