import { expect } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import type { ApplyOutcome } from '../../../shared/sync/applier.js';
import type { Batch } from '../../../shared/sync/protocol.js';
import { type SyncApplier, syncApplier } from '../../../shared/sync/sync-applier.js';
import { seed } from '../../helpers/builders.js';
import { Client, query } from '../../helpers/http.js';
import type { TestDialect } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { batchesOfLog, type LogRow, type MasterData, SITE } from './apply-fixture.js';

/** The site's admin, made at the cloud after the site registered so that it reaches the edge. */
const SITE_ADMIN = { username: 'site-admin', password: 'site-admin-password-1' };

export async function registerSiteAt(db: AppDatabase, siteId: string, now: number): Promise<void> {
  await query(
    db,
    'INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)',
    siteId,
    `Site ${siteId}`,
    '$7$unused',
    now,
  );
}

/** A log's rows after `afterSeq` as the sender would publish them (one batch of up to `size`). */
export async function batchesOf(
  db: AppDatabase,
  peer: string,
  site: string,
  afterSeq: number,
  size = 500,
): Promise<Batch[]> {
  const rows = (await query(
    db,
    'SELECT seq, entity, entity_id, op, hlc, schema_v, data FROM change_log WHERE peer = ? AND seq > ? ORDER BY seq',
    peer,
    afterSeq,
  )) as LogRow[];
  const stream = (await query(db, "SELECT value FROM sync_meta WHERE name = 'stream'"))[0]!.value as string;
  return batchesOfLog(rows, { site, stream, afterSeq, size });
}

/**
 * A cloud on either database and one edge of SITE (SQLite, as edges always are), synced by calling
 * the appliers (SyncApplier: the same interface the runtimes use).
 */
export class CloudAndEdge {
  readonly cloudApi: Client;
  edgeApi!: Client;
  readonly cloudApplier: SyncApplier;
  readonly edgeApplier: SyncApplier;
  private sent = { down: 0, up: 0 };

  private constructor(
    readonly clock: ManualClock,
    readonly cloud: TestApp<AppDatabase>,
    readonly edge: TestApp<AppDatabase>,
  ) {
    this.cloudApi = new Client(cloud.url, cloud.adminToken);
    this.cloudApplier = syncApplier(cloud.core);
    this.edgeApplier = syncApplier(edge.core);
  }

  static async start(dialect: TestDialect, clock = new ManualClock()): Promise<CloudAndEdge> {
    const cloud = await startTestApp({ dialect, clock, env: { YARD_ROLE: 'cloud' } });
    await registerSiteAt(cloud.db, SITE, clock.now());
    const edge = await startTestApp({
      clock,
      env: { YARD_ROLE: 'edge', YARD_SITE_ID: SITE, YARD_MQTT_URL: 'mqtt://127.0.0.1:9' },
      login: false,
    });
    return new CloudAndEdge(clock, cloud, edge);
  }

  /** Cloud -> edge: everything the cloud logged for SITE since the last call. */
  async down(): Promise<ApplyOutcome[]> {
    const batches = await batchesOf(this.cloud.db, SITE, SITE, this.sent.down);
    const outcomes: ApplyOutcome[] = [];
    for (const b of batches) outcomes.push(await this.edgeApplier.apply('cloud', b));
    if (batches.length > 0) this.sent.down = batches.at(-1)!.to;
    return outcomes;
  }

  /** Edge -> cloud: the batches (the caller applies them), and the position moved past them. */
  async upBatches(size = 500): Promise<Batch[]> {
    const batches = await batchesOf(this.edge.db, 'cloud', SITE, this.sent.up, size);
    if (batches.length > 0) this.sent.up = batches.at(-1)!.to;
    return batches;
  }

  async up(): Promise<ApplyOutcome[]> {
    const outcomes: ApplyOutcome[] = [];
    for (const b of await this.upBatches()) outcomes.push(await this.cloudApplier.apply(SITE, b));
    return outcomes;
  }

  /**
   * Master data made at the cloud over HTTP (a yard of SITE with a spot and a door, a carrier, a
   * driver, the site's admin), down to the edge; the site's admin logged in there; a gate.
   */
  async linked(): Promise<{ m: MasterData; edge: Client; gateId: string }> {
    const api = seed(this.cloudApi);
    const yardId = (await api.yard({ code: 'NTH', name: 'North', timeZone: 'America/Chicago', siteId: SITE }))
      .id as string;
    const spot = await api.location(yardId, { kind: 'spot', name: 'A-01' });
    const door = await api.location(yardId, { kind: 'door', name: 'D-01' });
    const carrier = await api.carrier({ name: 'Acme Freight', scac: 'ACME' });
    const driver = await api.driver({ firstName: 'Jo', lastName: 'Jockey', driverCode: 'J01', pin: '2468' });
    const user = await api.user({ ...SITE_ADMIN, role: 'admin' });
    const m: MasterData = {
      yardId,
      spotId: spot.id,
      doorId: door.id,
      carrierId: carrier.id,
      driverId: driver.id,
      userId: user.id,
    };
    const down = await this.down();
    expect(down.reduce((n, o) => n + o.deadLetters, 0)).toBe(0);
    const login = await new Client(this.edge.url).post('/api/auth/login', SITE_ADMIN);
    expect(login.status, login.text).toBe(200);
    this.edgeApi = new Client(this.edge.url, login.body.token);
    const gate = await this.edgeApi.post(`/api/yard/${yardId}/gate`, { name: 'Main', direction: 'both' });
    expect(gate.status, gate.text).toBe(201);
    return { m, edge: this.edgeApi, gateId: gate.body.id };
  }

  async close(): Promise<void> {
    await this.edge.close();
    await this.cloud.close();
  }
}

/** The first column of the first row. */
export async function value(db: AppDatabase, sql: string, ...params: unknown[]): Promise<unknown> {
  const row = (await query(db, sql, ...params))[0] as Record<string, unknown> | undefined;
  return row === undefined ? undefined : Object.values(row)[0];
}
