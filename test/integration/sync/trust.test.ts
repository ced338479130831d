import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../../shared/db/migrate.js';
import { SiteRepo } from '../../../shared/modules/sync/sites.js';
import { parseHlc } from '../../../shared/sync/hlc.js';
import { clientWithRole, query } from '../../helpers/http.js';
import { connectOnce } from '../../helpers/mqtt-client.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { type SyncHarness, startSyncHarness } from '../../helpers/sync-harness.js';
import { waitFor } from '../../helpers/wait-for.js';
import { cloudMasterData, count, countAt, createTask, type MasterData, valueAt } from './link-fixture.js';

/**
 * docs/sync.md "Trust": a site's MQTT credentials live on a yard box; what it sends is untrusted.
 * A real cloud and a real edge (site-a) over a real broker; site-x is a stolen box: a raw MQTT
 * client publishing forged change batches on its own `up/changes` topic.
 */
describe.each(TEST_DIALECTS)('sync trust (cloud on %s)', (dialect) => {
  let h: SyncHarness;
  let a: MasterData;
  let x: MasterData;
  let attacker: MqttClient;
  let seq = 0;
  const STREAM = 'stolen-box-stream';

  beforeAll(async () => {
    h = await startSyncHarness({ dialect, sites: ['site-a'] });
    await query(
      h.cloud.app.db,
      'INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)',
      'site-x',
      'Site site-x',
      '$7$unused',
      Date.now(),
    );
    a = await cloudMasterData(h.cloud.client, 'site-a', 'A');
    x = await cloudMasterData(h.cloud.client, 'site-x', 'X');
    await h.converged(h.edges[0]!, { entities: ['carrier', 'driver'] });
    const { connected } = connectOnce(h.broker.url, 'site-x', undefined, 'edge-site-x');
    attacker = await connected;
  });
  afterAll(async () => {
    await attacker?.endAsync();
    await h?.close();
  });

  const cloudValue = (sql: string, ...args: unknown[]) => valueAt(h.cloud.app.db, sql, ...args);
  const cloudRow = async (sql: string, ...args: unknown[]) =>
    (await query(h.cloud.app.db, sql, ...args))[0] as Record<string, unknown> | undefined;
  const cloudCount = (sql: string, ...args: unknown[]) => countAt(h.cloud.app.db, sql, ...args);
  const siteA = () => h.edges[0]!;

  function hlcAt(ms: number): string {
    return `${String(ms).padStart(13, '0')}-0000-site-x`;
  }

  /** Publishes rows as site-x and waits until the cloud has applied (or dead-lettered) them. */
  async function send(
    rows: Array<{
      entity: string;
      id: string;
      op?: 'upsert' | 'delete';
      data: Record<string, unknown>;
      hlc?: string;
    }>,
  ): Promise<void> {
    const from = seq + 1;
    const now = Date.now();
    const wire = rows.map((r) => {
      seq += 1;
      const hlc = r.hlc ?? hlcAt(now);
      return { seq, entity: r.entity, id: r.id, op: r.op ?? 'upsert', hlc, data: { hlc, ...r.data } };
    });
    const batch = {
      v: 1,
      site: 'site-x',
      stream: STREAM,
      from,
      to: seq,
      schemaV: SCHEMA_VERSION,
      rows: wire,
    };
    await attacker.publishAsync('yards/site-x/up/changes', JSON.stringify(batch), { qos: 1 });
    const upTo = seq;
    await waitFor(
      async () =>
        Number(
          (await cloudValue("SELECT applied_remote_seq FROM sync_cursor WHERE peer = 'site-x'")) ?? 0,
        ) === upTo,
      { what: `the cloud applied site-x's rows up to ${upTo}` },
    );
  }

  function deadLetter(entityId: string): Promise<string | undefined> {
    return cloudValue(
      "SELECT error FROM dead_letter WHERE peer = 'site-x' AND entity_id = ? ORDER BY id DESC",
      entityId,
    ) as Promise<string | undefined>;
  }

  describe('a site cannot write what the trust rules (docs/sync.md) do not let it write', () => {
    it('cannot create users or API keys (not at the cloud, not forwarded to other sites, no login)', async () => {
      const now = Date.now();
      await send([
        {
          entity: 'user',
          id: 'u-evil',
          data: {
            id: 'u-evil',
            username: 'evil',
            role: 'admin',
            yardIds: null,
            passwordHash: await cloudValue("SELECT password_hash FROM app_user WHERE username = 'admin'"),
            disabled: 0,
            createdAt: now,
            updatedAt: now,
            version: 1,
          },
        },
        {
          entity: 'api_key',
          id: 'k-evil',
          data: {
            id: 'k-evil',
            name: 'evil',
            role: 'admin',
            yardIds: null,
            secretHash: 'x',
            createdAt: now,
            updatedAt: now,
            version: 1,
          },
        },
        {
          entity: 'carrier',
          id: 'c-evil',
          data: { id: 'c-evil', name: 'Evil', createdAt: now, updatedAt: now, version: 1 },
        },
        // A setting that does not say it is the site's is a global one (the table's default scope).
        {
          entity: 'setting',
          id: 'tasks.maxAssignedPerDriver',
          data: {
            name: 'tasks.maxAssignedPerDriver',
            value: '20',
            createdAt: now,
            updatedAt: now,
            version: 1,
          },
        },
      ]);
      expect(await cloudCount("SELECT count(*) FROM app_user WHERE id = 'u-evil'")).toBe(0);
      expect(await cloudCount("SELECT count(*) FROM api_key WHERE id = 'k-evil'")).toBe(0);
      expect(await cloudCount("SELECT count(*) FROM carrier WHERE id = 'c-evil'")).toBe(0);
      expect(
        await cloudCount("SELECT count(*) FROM change_log WHERE entity_id IN ('u-evil', 'k-evil')"),
      ).toBe(0);
      expect(await deadLetter('u-evil')).toMatch(/^\[cloud-owned\] user u-evil is managed at the cloud/);
      expect(await deadLetter('k-evil')).toMatch(/^\[cloud-owned\]/);
      expect(await deadLetter('tasks.maxAssignedPerDriver')).toMatch(/^\[cloud-owned\]/);
      expect(await cloudCount("SELECT count(*) FROM setting WHERE name = 'tasks.maxAssignedPerDriver'")).toBe(
        0,
      );
      const login = await h.cloud.client
        .as(undefined)
        .post('/api/auth/login', { username: 'evil', password: 'admin-password-1' });
      expect(login.status).toBe(401);
    });

    it('cannot unblock a driver, replace a PIN or change a driver code; other fields still merge', async () => {
      const blocked = await h.cloud.client.patch(`/api/driver/${a.driverId}`, {
        status: 'blocked',
        blockedReason: 'badge lost',
      });
      expect(blocked.status, blocked.text).toBe(200);
      const before = (await cloudRow('SELECT * FROM driver WHERE id = ?', a.driverId))!;
      const later = hlcAt(Date.now() + 1000);
      const fieldHlc = JSON.stringify(
        Object.fromEntries(
          ['status', 'blockedReason', 'pinHash', 'driverCode', 'phone'].map((f) => [f, later]),
        ),
      );
      await send([
        {
          entity: 'driver',
          id: a.driverId,
          hlc: later,
          data: {
            id: a.driverId,
            kind: 'yard',
            firstName: 'Jo',
            lastName: 'Jockey A',
            status: 'active',
            blockedReason: null,
            pinHash: 'scrypt$forged',
            driverCode: 'EVIL',
            phone: '+15550100',
            fieldHlc,
            version: 9,
          },
        },
      ]);
      const after = (await cloudRow('SELECT * FROM driver WHERE id = ?', a.driverId))!;
      expect(after).toMatchObject({
        status: 'blocked',
        blocked_reason: 'badge lost',
        pin_hash: before.pin_hash,
        driver_code: before.driver_code,
        phone: '+15550100',
      });
      // The forged field clocks are not kept either: the cloud's next PIN change still wins everywhere.
      const clocks = JSON.parse(String(after.field_hlc)) as Record<string, string>;
      expect(clocks.pinHash).not.toBe(later);
      await waitFor(
        () =>
          count(
            siteA().app,
            "SELECT count(*) FROM driver WHERE id = ? AND status = 'blocked'",
            a.driverId,
          ) === 1,
        { what: 'site-a still sees the driver blocked' },
      );
      expect(
        siteA().app.db.sqlite.prepare('SELECT pin_hash FROM driver WHERE id = ?').pluck().get(a.driverId),
      ).toBe(before.pin_hash);
    });

    it('cannot delete a driver organisation-wide, nor a trailer outside its yards', async () => {
      const trailer = await h.cloud.client.post('/api/trailer', { number: 'TR-TRUST-1' });
      expect(trailer.status, trailer.text).toBe(201);
      await send([
        { entity: 'driver', id: a.driverId, op: 'delete', data: { id: a.driverId } },
        { entity: 'trailer', id: trailer.body.id, op: 'delete', data: { id: trailer.body.id } },
      ]);
      expect(await cloudCount('SELECT count(*) FROM driver WHERE id = ?', a.driverId)).toBe(1);
      expect(await cloudCount('SELECT count(*) FROM trailer WHERE id = ?', trailer.body.id)).toBe(1);
      expect(
        await cloudCount(
          'SELECT count(*) FROM sync_tombstone WHERE entity_id IN (?, ?)',
          a.driverId,
          trailer.body.id,
        ),
      ).toBe(0);
      expect(await deadLetter(a.driverId)).toMatch(/^\[site-scope\] a site may not delete a driver/);
      expect(await deadLetter(trailer.body.id)).toMatch(
        /^\[site-scope\] a site may delete a trailer only while it is in one of its yards/,
      );
    });

    it("cannot plant tasks in another site's yard, nor take over its gate", async () => {
      const gate = await h.cloud.client.get(`/api/yard/${a.yardId}/gate`);
      const now = Date.now();
      // A gate of site-a's yard, made at site-a's edge, reaches the cloud.
      const made = await siteA().client.post(`/api/yard/${a.yardId}/gate`, {
        name: 'North',
        direction: 'both',
      });
      expect(made.status, made.text).toBe(201);
      await waitFor(
        async () => (await cloudCount('SELECT count(*) FROM gate WHERE id = ?', made.body.id)) === 1,
        {
          what: "site-a's gate at the cloud",
        },
      );
      expect(gate.status).toBe(200);
      await send([
        {
          entity: 'yard_task',
          id: 't-planted',
          data: {
            id: 't-planted',
            yardId: a.yardId,
            type: 'move',
            status: 'QUEUED',
            priority: 3,
            createdAt: now,
            updatedAt: now,
            version: 1,
          },
        },
        // The same gate id claimed for site-x's own yard: a takeover of site-a's gate.
        {
          entity: 'gate',
          id: made.body.id,
          data: {
            id: made.body.id,
            yardId: x.yardId,
            name: 'Mine now',
            direction: 'both',
            cameraIds: '[]',
            createdAt: now,
            updatedAt: now,
            version: 5,
          },
        },
        {
          entity: 'movement',
          id: 'm-foreign',
          data: {
            id: 'm-foreign',
            yardId: a.yardId,
            direction: 'in',
            at: now,
            attachmentIds: '[]',
            warnings: '[]',
            createdAt: now,
          },
        },
      ]);
      expect(await cloudCount("SELECT count(*) FROM yard_task WHERE id = 't-planted'")).toBe(0);
      expect(count(siteA().app, "SELECT count(*) FROM yard_task WHERE id = 't-planted'")).toBe(0);
      expect(await cloudRow('SELECT yard_id, name FROM gate WHERE id = ?', made.body.id)).toEqual({
        yard_id: a.yardId,
        name: 'North',
      });
      expect(await cloudCount("SELECT count(*) FROM movement WHERE id = 'm-foreign'")).toBe(0);
      expect(await deadLetter('t-planted')).toMatch(
        /^\[other-site\] yard task t-planted is not in a yard of site site-x/,
      );
      expect(await deadLetter(made.body.id)).toMatch(/^\[other-site\] gate .* not a yard of site site-x/);
      expect(await deadLetter('m-foreign')).toMatch(/^\[other-site\]/);
    });

    it('a row stamped far in the future is refused and does not move the cloud clock; sync goes on', async () => {
      const now = Date.now();
      await send([
        {
          entity: 'trailer',
          id: 'tr-future',
          hlc: '9999999999999-ffff-x',
          data: {
            id: 'tr-future',
            number: 'FUTURE-1',
            yardId: x.yardId,
            createdAt: now,
            updatedAt: now,
            version: 1,
          },
        },
        {
          entity: 'trailer',
          id: 'tr-now',
          data: {
            id: 'tr-now',
            number: 'NOW-1',
            yardId: x.yardId,
            createdAt: now,
            updatedAt: now,
            version: 1,
          },
        },
      ]);
      expect(await deadLetter('tr-future')).toMatch(/^\[clock-ahead\] trailer tr-future is stamped .* ahead/);
      expect(await cloudCount("SELECT count(*) FROM trailer WHERE id = 'tr-now'")).toBe(1);
      // The cloud's next write carries a clock of now, and site-a still takes it.
      const carrier = await h.cloud.client.post('/api/carrier', { name: 'After The Future' });
      expect(carrier.status).toBe(201);
      const hlc = (await cloudValue('SELECT hlc FROM carrier WHERE id = ?', carrier.body.id)) as string;
      expect(Math.abs(parseHlc(hlc).ms - Date.now())).toBeLessThan(60_000);
      await waitFor(
        () => count(siteA().app, 'SELECT count(*) FROM carrier WHERE id = ?', carrier.body.id) === 1,
        {
          what: 'the carrier at site-a',
        },
      );
      const status = await h.cloud.client.get('/api/sync/status');
      expect(status.status, status.text).toBe(200);
    });
  });

  describe('the rules hold at their edges (each test fails if its rule is changed by one line)', () => {
    const MAX_AHEAD_MS = 5 * 60_000; // the default YARD_SYNC_MAX_CLOCK_AHEAD_MS
    const nextCloudHlc = async () => {
      const carrier = await h.cloud.client.post('/api/carrier', { name: `Clock probe ${Date.now()}` });
      expect(carrier.status, carrier.text).toBe(201);
      return parseHlc((await cloudValue('SELECT hlc FROM carrier WHERE id = ?', carrier.body.id)) as string)
        .ms;
    };
    const trailer = (id: string, fieldHlc?: Record<string, string>) => ({
      id,
      number: id.toUpperCase(),
      yardId: x.yardId,
      createdAt: Date.now(),
      updatedAt: Date.now(),
      version: 1,
      ...(fieldHlc ? { fieldHlc: JSON.stringify(fieldHlc) } : {}),
    });

    it('a row whose own hlc is fine but one field clock is far ahead is refused and does not move the clock', async () => {
      const yearAhead = hlcAt(Date.now() + 365 * 86_400_000);
      await send([
        { entity: 'trailer', id: 'tr-field-ahead', data: trailer('tr-field-ahead', { number: yearAhead }) },
      ]);
      expect(await deadLetter('tr-field-ahead')).toMatch(
        /^\[clock-ahead\] trailer tr-field-ahead is stamped/,
      );
      expect(await cloudCount("SELECT count(*) FROM trailer WHERE id = 'tr-field-ahead'")).toBe(0);
      expect(Math.abs((await nextCloudHlc()) - Date.now())).toBeLessThan(60_000);
    });

    it('the bound is the configured 5 minutes: 30 s over it is refused, 30 s under it applies', async () => {
      await send([
        {
          entity: 'trailer',
          id: 'tr-over',
          hlc: hlcAt(Date.now() + MAX_AHEAD_MS + 30_000),
          data: trailer('tr-over'),
        },
        {
          entity: 'trailer',
          id: 'tr-under',
          hlc: hlcAt(Date.now() + MAX_AHEAD_MS - 30_000),
          data: trailer('tr-under'),
        },
      ]);
      expect(await deadLetter('tr-over')).toMatch(/^\[clock-ahead\] .* \(at most 300 s allowed\)/);
      expect(await cloudCount("SELECT count(*) FROM trailer WHERE id = 'tr-over'")).toBe(0);
      expect(await deadLetter('tr-under')).toBeUndefined();
      expect(await cloudCount("SELECT count(*) FROM trailer WHERE id = 'tr-under'")).toBe(1);
    });

    it("another site re-sending site A's task with its own yard does not move it", async () => {
      const taskId = await createTask(h.cloud.client, a);
      const stored = await h.cloud.app.core.kysely
        .selectFrom('yardTask')
        .selectAll()
        .where('id', '=', taskId)
        .executeTakeFirstOrThrow();
      const later = hlcAt(Date.now() + 1000);
      const clocks = { ...(JSON.parse(String(stored.fieldHlc)) as Record<string, string>), yardId: later };
      const { apiJson: _derived, ...row } = stored as typeof stored & { apiJson?: unknown };
      await send([
        {
          entity: 'yard_task',
          id: taskId,
          hlc: later,
          data: { ...row, yardId: x.yardId, fieldHlc: JSON.stringify(clocks), version: stored.version + 1 },
        },
      ]);
      expect(await deadLetter(taskId)).toMatch(
        /^\[other-site\] yard task .* is not in a yard of site site-x/,
      );
      expect(await cloudValue('SELECT yard_id FROM yard_task WHERE id = ?', taskId)).toBe(a.yardId);
    });

    it('a new driver made at a site may not carry a driver code', async () => {
      await send([
        {
          entity: 'driver',
          id: 'd-coded',
          data: {
            id: 'd-coded',
            kind: 'yard',
            firstName: 'Planted',
            lastName: 'Code',
            driverCode: 'PLANT',
            pinHash: null,
            status: 'active',
            blockedReason: null,
            createdAt: Date.now(),
            updatedAt: Date.now(),
            version: 1,
          },
        },
      ]);
      expect(await deadLetter('d-coded')).toMatch(
        /^\[cloud-only-field\] a site may not set driverCode of a driver/,
      );
      expect(await cloudCount("SELECT count(*) FROM driver WHERE id = 'd-coded'")).toBe(0);
    });
  });

  describe('adopting a formerly standalone edge’s master data', () => {
    it('is an explicit admin action at the cloud: refused rows wait, an unscoped admin adopts them', async () => {
      const now = Date.now();
      await send([
        {
          entity: 'carrier',
          id: 'c-old-edge',
          data: {
            id: 'c-old-edge',
            name: 'Standalone Days Freight',
            createdAt: now,
            updatedAt: now,
            version: 1,
          },
        },
      ]);
      expect(await deadLetter('c-old-edge')).toMatch(/^\[cloud-owned\]/);
      expect(await cloudCount("SELECT count(*) FROM carrier WHERE id = 'c-old-edge'")).toBe(0);

      // site-x's edge ran standalone before it was linked (recorded at provisioning).
      await new SiteRepo(h.cloud.app.core.kysely).markStandalone('site-x');
      const scoped = await clientWithRole(h.cloud.client, 'admin', { yardIds: [x.yardId] });
      const refused = await scoped.post('/api/sync/sites/site-x/adopt', { ids: [1] });
      expect(refused.status).toBe(403);
      // Dead letters are every site's rows as sent: not for an admin limited to some yards.
      expect((await scoped.get('/api/sync/dead-letter?peer=site-x')).status).toBe(403);
      expect((await scoped.post('/api/sync/dead-letter/retry', { peer: 'site-x' })).status).toBe(403);
      const unknown = await h.cloud.client.post('/api/sync/sites/nowhere/adopt', { ids: [1] });
      expect(unknown.status).toBe(404);
      const atEdge = await siteA().client.post('/api/sync/sites/site-a/adopt', { ids: [1] });
      expect(atEdge.status).toBe(409);

      const adopted = await h.cloud.client.post('/api/sync/sites/site-x/adopt', {
        ids: [await cloudValue("SELECT id FROM dead_letter WHERE entity_id = 'c-old-edge'")],
      });
      expect(adopted.status, adopted.text).toBe(200);
      expect(adopted.body.adopted).toBe(1);
      expect(await cloudCount("SELECT count(*) FROM carrier WHERE id = 'c-old-edge'")).toBe(1);
      expect(await deadLetter('c-old-edge')).toBeUndefined();
      // The user planted earlier is still refused: only what was asked for was adopted.
      expect(await deadLetter('u-evil')).toMatch(/^\[cloud-owned\]/);
      await waitFor(() => count(siteA().app, "SELECT count(*) FROM carrier WHERE id = 'c-old-edge'") === 1, {
        what: 'the adopted carrier at site-a',
      });
    });
  });
});
