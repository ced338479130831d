import { expect } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { SCHEMA_VERSION } from '../../../shared/db/migrate.js';
import { type ApplyOutcome, ChangeApplier } from '../../../shared/sync/applier.js';
import { entityChecksums } from '../../../shared/sync/checksum.js';
import type { Batch } from '../../../shared/sync/protocol.js';
import { writeSiteSnapshot } from '../../../shared/sync/snapshot.js';
import { seed } from '../../helpers/builders.js';
import { Client } from '../../helpers/http.js';
import { loginAdmin, startTestApp, type TestApp } from '../../helpers/test-app.js';

export const SITE = 'site-a';
export const OTHER_SITE = 'site-b';

/** Registers a site at the cloud (the site table is the cloud's own, not synced). */
export function registerSite(cloud: TestApp, siteId: string): void {
  cloud.db.sqlite
    .prepare('INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)')
    .run(siteId, `Site ${siteId}`, '$7$unused', cloud.core.clock.now());
}

export function streamOf(app: TestApp): string {
  return app.db.sqlite.prepare("SELECT value FROM sync_meta WHERE name = 'stream'").pluck().get() as string;
}

/**
 * The batches a sender would publish for `peer`: its change_log rows after `afterSeq`, `size` rows
 * each, with seq ranges as protocol.ts describes (from = previous to + 1).
 */
export function batchesFrom(sender: TestApp, peer: string, afterSeq: number, size = 500): Batch[] {
  const rows = sender.db.sqlite
    .prepare(
      'SELECT seq, entity, entity_id, op, hlc, schema_v, data FROM change_log WHERE peer = ? AND seq > ? ORDER BY seq',
    )
    .all(peer, afterSeq) as LogRow[];
  const site = sender.core.config.role === 'cloud' ? peer : sender.core.config.siteId;
  return batchesOfLog(rows, { site, stream: streamOf(sender), afterSeq, size });
}

/** A change_log row as either database gives it (column names as stored). */
export interface LogRow {
  seq: number;
  entity: string;
  entity_id: string;
  op: 'upsert' | 'delete';
  hlc: string;
  schema_v: number;
  data: string;
}

/** Log rows after `afterSeq` as batches of `size` rows, with seq ranges as protocol.ts describes. */
export function batchesOfLog(
  rows: readonly LogRow[],
  o: { site: string; stream: string; afterSeq: number; size: number },
): Batch[] {
  const batches: Batch[] = [];
  let from = o.afterSeq + 1;
  for (let i = 0; i < rows.length; i += o.size) {
    const chunk = rows.slice(i, i + o.size);
    const to = Number(chunk.at(-1)!.seq);
    batches.push({
      v: 1,
      site: o.site,
      stream: o.stream,
      from,
      to,
      schemaV: Math.max(...chunk.map((r) => Number(r.schema_v))),
      rows: chunk.map((r) => ({
        seq: Number(r.seq),
        entity: r.entity,
        id: r.entity_id,
        op: r.op,
        hlc: r.hlc,
        data: JSON.parse(r.data) as Record<string, unknown>,
      })),
    });
    from = to + 1;
  }
  return batches;
}

/** A cloud and one linked edge of SITE on separate databases, synced by calling the appliers. */
export class SyncPair {
  readonly cloudApi: Client;
  edgeApi!: Client;
  readonly cloudApplier: ChangeApplier;
  readonly edgeApplier: ChangeApplier;
  /** Last seq of each log handed over. */
  private sent = { down: 0, up: 0 };

  private constructor(
    readonly clock: ManualClock,
    readonly cloud: TestApp,
    readonly edge: TestApp,
  ) {
    this.cloudApi = new Client(cloud.url, cloud.adminToken);
    this.cloudApplier = new ChangeApplier(cloud.core);
    this.edgeApplier = new ChangeApplier(edge.core);
  }

  static async start(clock = new ManualClock()): Promise<SyncPair> {
    const cloud = await startTestApp({ clock, env: { YARD_ROLE: 'cloud' } });
    // A new site: registered, then a snapshot of what it needs (here the cloud's first admin).
    registerSite(cloud, SITE);
    await writeSiteSnapshot(cloud.core, SITE);
    const edge = await startTestApp({
      clock,
      env: { YARD_ROLE: 'edge', YARD_SITE_ID: SITE, YARD_MQTT_URL: 'mqtt://127.0.0.1:9' },
      login: false,
    });
    return new SyncPair(clock, cloud, edge);
  }

  /** Cloud -> edge: everything the cloud logged for SITE since the last call. */
  down(): ApplyOutcome[] {
    const batches = batchesFrom(this.cloud, SITE, this.sent.down);
    const outcomes = batches.map((b) => this.edgeApplier.apply('cloud', b));
    if (batches.length > 0) this.sent.down = batches.at(-1)!.to;
    return outcomes;
  }

  /** Edge -> cloud. */
  up(): ApplyOutcome[] {
    const batches = batchesFrom(this.edge, 'cloud', this.sent.up);
    const outcomes = batches.map((b) => this.cloudApplier.apply(SITE, b));
    if (batches.length > 0) this.sent.up = batches.at(-1)!.to;
    return outcomes;
  }

  /** Both ways until neither side has anything new. */
  settle(): void {
    for (let i = 0; i < 5; i++) {
      const moved = [...this.down(), ...this.up()];
      if (moved.length === 0) return;
    }
  }

  /** Logs in at the edge with the admin user that came from the cloud. */
  async loginEdge(): Promise<Client> {
    this.edgeApi = new Client(this.edge.url, await loginAdmin(this.edge.url));
    return this.edgeApi;
  }

  async close(): Promise<void> {
    await this.edge.close();
    await this.cloud.close();
  }
}

export const NEWER_SCHEMA = SCHEMA_VERSION + 1;

/** Sums of an outcome list, for assertions. */
export function total(outcomes: ApplyOutcome[]) {
  return outcomes.reduce(
    (t, o) => ({
      applied: t.applied + o.applied,
      duplicates: t.duplicates + o.duplicates,
      deadLetters: t.deadLetters + o.deadLetters,
      pending: t.pending + o.pending,
    }),
    { applied: 0, duplicates: 0, deadLetters: 0, pending: 0 },
  );
}

export interface MasterData {
  yardId: string;
  spotId: string;
  doorId: string;
  carrierId: string;
  driverId: string;
  userId: string;
}

/** Master data made at the cloud over HTTP: a yard of SITE with a spot and a door, a carrier, a yard driver (code J01, PIN 2468), a gate user. */
export async function cloudMasterData(pair: SyncPair): Promise<MasterData> {
  const api = seed(pair.cloudApi);
  const yardId = (await api.yard({ code: 'NTH', name: 'North', timeZone: 'America/Chicago', siteId: SITE }))
    .id as string;
  const spot = await api.location(yardId, { kind: 'spot', name: 'A-01' });
  const door = await api.location(yardId, { kind: 'door', name: 'D-01' });
  const carrier = await api.carrier({ name: 'Acme Freight', scac: 'ACME' });
  const driver = await api.driver({ firstName: 'Jo', lastName: 'Jockey', driverCode: 'J01', pin: '2468' });
  const user = await api.user({ username: 'gatekeeper', password: 'gate-password-1', role: 'gate' });
  return {
    yardId,
    spotId: spot.id,
    doorId: door.id,
    carrierId: carrier.id,
    driverId: driver.id,
    userId: user.id,
  };
}

/** Checksums of these entities are equal on both sides (and the entities are not empty). */
export function expectSameRows(pair: SyncPair, entities: string[]): void {
  const cloud = entityChecksums(pair.cloud.db.sqlite);
  const edge = entityChecksums(pair.edge.db.sqlite);
  for (const e of entities) {
    expect(edge[e], e).toEqual(cloud[e]);
    expect(cloud[e]!.count, e).toBeGreaterThan(0);
  }
}

/** One value of a query (first column of the first row). */
export function one(app: TestApp, sql: string, ...args: unknown[]): unknown {
  return app.db.sqlite
    .prepare(sql)
    .pluck()
    .get(...args);
}

/** Master data down to the edge, admin logged in there, a gate made at the edge. */
export async function linkedEdge(pair: SyncPair): Promise<{ m: MasterData; edge: Client; gateId: string }> {
  const m = await cloudMasterData(pair);
  expect(total(pair.down()).deadLetters).toBe(0);
  const edge = await pair.loginEdge();
  const gate = await edge.post(`/api/yard/${m.yardId}/gate`, { name: 'Main', direction: 'both' });
  expect(gate.status, gate.text).toBe(201);
  return { m, edge, gateId: gate.body.id };
}

export async function checkIn(edge: Client, m: MasterData, gateId: string, trailer = 'TR-1', plate = 'TX1') {
  const res = await edge.post('/api/movement', {
    yardId: m.yardId,
    gateId,
    direction: 'in',
    trailer: { number: trailer, carrierId: m.carrierId },
    truck: { plate, plateRegion: 'TX' },
    driverId: m.driverId,
    locationId: m.spotId,
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; trailerId: string; truckId: string };
}
