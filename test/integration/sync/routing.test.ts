import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChangeApplier } from '../../../shared/sync/applier.js';
import { entityChecksums } from '../../../shared/sync/checksum.js';
import { SYNCED_ENTITIES, type SyncedEntity } from '../../../shared/sync/entities.js';
import { cloudRouting, edgeRouting } from '../../../shared/sync/routing.js';
import { writeSiteSnapshot } from '../../../shared/sync/snapshot.js';
import { seed } from '../../helpers/builders.js';
import { Client } from '../../helpers/http.js';
import { loginAdmin, startTestApp, type TestApp } from '../../helpers/test-app.js';
import { batchesFrom, registerSite, streamOf } from './apply-fixture.js';

const entity = (name: string) => SYNCED_ENTITIES.find((e) => e.entity === name) as SyncedEntity;

let cloud: TestApp;
let api: Client;
let yardA: string;
let yardB: string;

/** Which peers' logs got rows for this record. */
const peersLogged = (id: string) =>
  (
    cloud.db.sqlite
      .prepare('SELECT DISTINCT peer FROM change_log WHERE entity_id = ? ORDER BY peer')
      .pluck()
      .all(id) as string[]
  ).filter((p) => p !== 'cloud');

async function yard(code: string, siteId: string): Promise<string> {
  return (await seed(api).yard({ code, name: code, timeZone: 'Europe/Berlin', siteId })).id;
}

beforeEach(async () => {
  cloud = await startTestApp({ env: { YARD_ROLE: 'cloud' } });
  api = new Client(cloud.url, cloud.adminToken);
  registerSite(cloud, 'site-a');
  registerSite(cloud, 'site-b');
  yardA = await yard('AAA', 'site-a');
  yardB = await yard('BBB', 'site-b');
});
afterEach(async () => {
  await cloud.close();
});

describe('routing at the cloud', () => {
  it('a carrier goes to every site; a yard and its locations only to the yard’s site', async () => {
    const carrier = await api.post('/api/carrier', { name: 'Acme', scac: 'ACME' });
    expect(peersLogged(carrier.body.id)).toEqual(['site-a', 'site-b']);
    expect(peersLogged(yardA)).toEqual(['site-a']);
    const spot = await api.post(`/api/yard/${yardB}/location`, { kind: 'spot', name: 'B-1' });
    expect(spot.status, spot.text).toBe(201);
    expect(peersLogged(spot.body.id)).toEqual(['site-b']);
  });

  it('a gate, a movement and a session location go to the site of their yard; units and drivers everywhere', () => {
    const routing = cloudRouting(cloud.db.sqlite);
    expect(routing.peersFor(entity('gate'), { id: 'g1', yardId: yardA })).toEqual(['site-a']);
    expect(routing.peersFor(entity('movement'), { id: 'm1', yardId: yardB })).toEqual(['site-b']);
    expect(routing.peersFor(entity('gate'), { id: 'g2', yardId: 'unknown-yard' })).toEqual([]);
    expect(routing.peersFor(entity('trailer'), { id: 't1', yardId: yardA })).toEqual(['site-a', 'site-b']);
    expect(routing.peersFor(entity('driver'), { id: 'd1' })).toEqual(['site-a', 'site-b']);
    expect(routing.peersFor(entity('setting'), { name: 'x', scope: 'global' })).toEqual(['site-a', 'site-b']);
    expect(routing.peersFor(entity('setting'), { name: 'x', scope: 'site' })).toEqual([]);
    expect(routing.peersFor(entity('attachment'), { id: 'a1', refType: 'yard', refId: yardB })).toEqual([
      'site-b',
    ]);
    expect(routing.peersFor(entity('attachment'), { id: 'a2', refType: null, refId: null })).toEqual([
      'site-a',
      'site-b',
    ]);
    const edge = edgeRouting();
    expect(edge.peersFor(entity('movement'), { id: 'm1', yardId: yardA })).toEqual(['cloud']);
    // Logged for the cloud like every edge write; the cloud's applier ignores site settings.
    expect(edge.peersFor(entity('setting'), { name: 'gate.requireDriverCheck', scope: 'site' })).toEqual([
      'cloud',
    ]);
  });

  it('follows new sites and yards moved between sites at once, and forgets a rolled-back move', async () => {
    const routing = cloudRouting(cloud.db.sqlite);
    const gateOfA = { id: 'g1', yardId: yardA };
    expect(routing.peersFor(entity('gate'), gateOfA)).toEqual(['site-a']);
    registerSite(cloud, 'site-c');
    expect(routing.peersFor(entity('carrier'), { id: 'c1' })).toEqual(['site-a', 'site-b', 'site-c']);
    const moved = await api.patch(`/api/yard/${yardA}`, { siteId: 'site-c' });
    expect(moved.status, moved.text).toBe(200);
    expect(routing.peersFor(entity('gate'), gateOfA)).toEqual(['site-c']);
    const sqlite = cloud.db.sqlite;
    sqlite.exec('BEGIN');
    sqlite.prepare("UPDATE yard SET site_id = 'site-b' WHERE id = ?").run(yardA);
    expect(routing.peersFor(entity('gate'), gateOfA)).toEqual(['site-b']);
    sqlite.exec('ROLLBACK');
    expect(routing.peersFor(entity('gate'), gateOfA)).toEqual(['site-c']);
    sqlite.prepare("DELETE FROM site WHERE id = 'site-c'").run();
    expect(routing.peersFor(entity('gate'), gateOfA)).toEqual([]);
  });
});

describe('cloud forwarding and snapshots', () => {
  it('a trailer from one site is forwarded to the others; its movement is not', async () => {
    const carrier = await api.post('/api/carrier', { name: 'Acme', scac: 'ACME' });
    // A linked edge of site-a records a check-in (its admin user came from the cloud).
    const edge = await startTestApp({
      env: { YARD_ROLE: 'edge', YARD_SITE_ID: 'site-a', YARD_MQTT_URL: 'mqtt://127.0.0.1:9' },
      login: false,
    });
    try {
      const applier = new ChangeApplier(edge.core);
      await writeSiteSnapshot(cloud.core, 'site-a');
      for (const b of batchesFrom(cloud, 'site-a', 0)) expect(applier.apply('cloud', b).deadLetters).toBe(0);
      const edgeApi = new Client(edge.url, await loginAdmin(edge.url));
      const checkIn = await edgeApi.post('/api/movement', {
        yardId: yardA,
        direction: 'in',
        trailer: { number: 'TR-9', carrierId: carrier.body.id },
        force: true,
      });
      expect(checkIn.status, checkIn.text).toBe(201);
      const before = Number(cloud.db.sqlite.prepare('SELECT max(seq) FROM change_log').pluck().get());
      const cloudApplier = new ChangeApplier(cloud.core);
      const logged: string[][] = [];
      cloud.core.changes.onLogged((peers) => logged.push([...peers]));
      const outcomes = batchesFrom(edge, 'cloud', 0).map((b) => cloudApplier.apply('site-a', b));
      expect(outcomes.every((o) => o.deadLetters === 0)).toBe(true);

      const forwarded = cloud.db.sqlite
        .prepare(
          'SELECT peer, entity, entity_id, op, hlc, origin, data FROM change_log WHERE seq > ? ORDER BY seq',
        )
        .all(before) as Array<Record<string, unknown>>;
      expect(forwarded.map((r) => [r.peer, r.entity, r.entity_id])).toEqual([
        ['site-b', 'trailer', checkIn.body.trailerId],
      ]);
      const trailerAtEdge = edge.db.sqlite
        .prepare('SELECT hlc FROM trailer WHERE id = ?')
        .pluck()
        .get(checkIn.body.trailerId) as string;
      expect(forwarded[0]).toMatchObject({ op: 'upsert', hlc: trailerAtEdge, origin: 'site-a' });
      expect(JSON.parse(String(forwarded[0]!.data))).toMatchObject({
        id: checkIn.body.trailerId,
        number: 'TR-9',
      });
      expect(JSON.parse(String(forwarded[0]!.data))).not.toHaveProperty('apiJson');
      expect(logged).toEqual([['site-b']]);
    } finally {
      await edge.close();
    }
  });

  it('push tokens stay at the cloud: not forwarded, one per driver and device (the newest registration)', async () => {
    const driver = await api.post('/api/driver', {
      kind: 'yard',
      firstName: 'Jo',
      lastName: 'J',
      driverCode: 'J1',
    });
    expect(driver.status, driver.text).toBe(201);
    const applier = new ChangeApplier(cloud.core);
    const before = Number(cloud.db.sqlite.prepare('SELECT max(seq) FROM change_log').pluck().get());
    const token = (id: string, site: string, ms: number) => ({
      v: 1 as const,
      site,
      stream: `stream-${site}`,
      from: 1,
      to: 1,
      schemaV: 1,
      rows: [
        {
          seq: 1,
          entity: 'push_token',
          id,
          op: 'upsert' as const,
          hlc: `${String(ms).padStart(13, '0')}-0000-${site}`,
          data: {
            id,
            driverId: driver.body.id,
            deviceId: 'phone-1',
            platform: 'android',
            token: `tok-${site}`,
            createdAt: ms,
            updatedAt: ms,
            hlc: `${String(ms).padStart(13, '0')}-0000-${site}`,
            version: 1,
          },
        },
      ],
    });
    const now = cloud.core.clock.now();
    expect(applier.apply('site-a', token('p-a', 'site-a', now)).applied).toBe(1);
    expect(applier.apply('site-b', token('p-b', 'site-b', now + 1)).applied).toBe(1);
    expect(cloud.db.sqlite.prepare('SELECT id FROM push_token').pluck().all()).toEqual(['p-b']);
    expect(cloud.db.sqlite.prepare('SELECT peer, entity FROM change_log WHERE seq > ?').all(before)).toEqual(
      [],
    );
    expect(cloud.db.sqlite.prepare('SELECT count(*) FROM dead_letter').pluck().get()).toBe(0);
  });

  it('a site writes only its own yards’ records: a gate for another site’s yard is a dead letter', () => {
    const applier = new ChangeApplier(cloud.core);
    const now = cloud.core.clock.now();
    const hlc = `${String(now).padStart(13, '0')}-0000-site-a`;
    const gate = (id: string, yardId: string, seq: number) => ({
      seq,
      entity: 'gate',
      id,
      op: 'upsert' as const,
      hlc,
      data: {
        id,
        yardId,
        name: id,
        direction: 'both',
        cameraIds: '[]',
        createdAt: now,
        updatedAt: now,
        hlc,
        version: 1,
      },
    });
    const outcome = applier.apply('site-a', {
      v: 1,
      site: 'site-a',
      stream: 'stream-a',
      from: 1,
      to: 2,
      schemaV: 1,
      rows: [gate('g-own', yardA, 1), gate('g-foreign', yardB, 2)],
    });
    expect(outcome).toMatchObject({ applied: 1, deadLetters: 1, upTo: 2 });
    expect(cloud.db.sqlite.prepare('SELECT id FROM gate').pluck().all()).toEqual(['g-own']);
    expect(cloud.db.sqlite.prepare('SELECT entity_id, error FROM dead_letter').get()).toEqual({
      entity_id: 'g-foreign',
      error: `[other-site] gate g-foreign is in yard ${yardB}, not a yard of site site-a`,
    });
  });

  it('a snapshot puts what a new site needs into its log; a fresh edge applying it holds exactly that', async () => {
    await api.post('/api/carrier', { name: 'Acme', scac: 'ACME' });
    await api.post(`/api/yard/${yardA}/location`, { kind: 'spot', name: 'A-1' });
    await api.post(`/api/yard/${yardB}/location`, { kind: 'spot', name: 'B-1' });
    const global = await api.put('/api/settings', { settings: { 'dashboard.errorWindowMinutes': 60 } });
    expect(global.status, global.text).toBe(200);
    registerSite(cloud, 'site-new');
    const moved = await api.patch(`/api/yard/${yardB}`, { siteId: 'site-new' });
    expect(moved.status).toBe(200);

    const range = await writeSiteSnapshot(cloud.core, 'site-new');
    expect(range.rows).toBeGreaterThan(0);
    expect(range.to - range.from + 1).toBe(range.rows);
    const snapshot = cloud.db.sqlite
      .prepare('SELECT entity, entity_id FROM change_log WHERE peer = ? AND seq BETWEEN ? AND ? ORDER BY seq')
      .all('site-new', range.from, range.to) as Array<{ entity: string; entity_id: string }>;
    const entities = snapshot.map((r) => r.entity);
    // Yards before locations, master data present, the other site's yard absent.
    expect(entities.indexOf('yard')).toBeLessThan(entities.indexOf('location'));
    expect(snapshot.filter((r) => r.entity === 'yard').map((r) => r.entity_id)).toEqual([yardB]);
    expect(entities).toEqual(expect.arrayContaining(['carrier', 'user', 'setting', 'location']));

    const edge = await startTestApp({
      env: { YARD_ROLE: 'edge', YARD_SITE_ID: 'site-new', YARD_MQTT_URL: 'mqtt://127.0.0.1:9' },
      login: false,
    });
    try {
      const applier = new ChangeApplier(edge.core);
      // Resync: the edge's position for the cloud starts just before the snapshot.
      applier.resetPosition('cloud', streamOf(cloud), range.from - 1);
      const batches = batchesFrom(cloud, 'site-new', range.from - 1, 3);
      expect(batches[0]!.stream).toBe(streamOf(cloud));
      for (const b of batches)
        expect(applier.apply('cloud', b)).toMatchObject({ deadLetters: 0, gap: false });
      const atEdge = entityChecksums(edge.db.sqlite);
      const atCloud = entityChecksums(cloud.db.sqlite);
      for (const e of ['carrier', 'user', 'setting']) expect(atEdge[e], e).toEqual(atCloud[e]);
      expect(edge.db.sqlite.prepare('SELECT id FROM yard').pluck().all()).toEqual([yardB]);
      expect(edge.db.sqlite.prepare('SELECT count(*) FROM location').pluck().get()).toBe(1);
    } finally {
      await edge.close();
    }
    expect((await writeSiteSnapshot(cloud.core, 'nobody-needs-this')).rows).toBeGreaterThan(0);
  });
});
