import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionSite } from '../../../cloud/provision-site.js';
import { SCHEMA_VERSION } from '../../../shared/db/migrate.js';
import { clientWithRole } from '../../helpers/http.js';
import { connectOnce } from '../../helpers/mqtt-client.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { type SyncHarness, startSyncHarness } from '../../helpers/sync-harness.js';
import { waitFor } from '../../helpers/wait-for.js';
import { cloudMasterData, count, countAt, type MasterData, valueAt } from './link-fixture.js';

/**
 * docs/sync.md "Dead letters, retry and adoption" and "Trust": adoption takes a formerly standalone
 * edge's own yards, locations and carriers, and never a cloud-owned record a site must not write
 * (users, API keys, settings, integrations, another site's yards or locations). The admin sees per
 * kind what would be adopted before anything applies; a site provisioned linked has nothing to adopt.
 * A real cloud and a real edge (site-a) over a real broker; site-x (provisioned as formerly
 * standalone) and site-y (provisioned linked) are raw MQTT clients publishing their own batches.
 */
describe.each(TEST_DIALECTS)('adopting a site’s refused rows (cloud on %s)', (dialect) => {
  let h: SyncHarness;
  let a: MasterData;
  let dir: string;
  const boxes = new Map<string, { client: MqttClient; seq: number }>();
  const KEY_SECRET = randomBytes(32).toString('base64url');
  const KEY_ID = randomUUID();
  const now = Date.now();

  beforeAll(async () => {
    h = await startSyncHarness({ dialect, sites: ['site-a'] });
    dir = mkdtempSync(join(tmpdir(), 'adoption-'));
    const { kysely, config } = h.cloud.app.core;
    await provisionSite(kysely, config, { siteId: 'site-x', outDir: dir, wasStandalone: true });
    await provisionSite(kysely, config, { siteId: 'site-y', outDir: dir });
    a = await cloudMasterData(h.cloud.client, 'site-a', 'A');
    await h.converged(h.edges[0]!, { entities: ['yard', 'user'] });
    for (const site of ['site-x', 'site-y']) {
      const { connected } = connectOnce(h.broker.url, site, undefined, `edge-${site}`);
      boxes.set(site, { client: await connected, seq: 0 });
    }
  });
  afterAll(async () => {
    for (const box of boxes.values()) await box.client.endAsync();
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const cloudValue = (sql: string, ...args: unknown[]) => valueAt(h.cloud.app.db, sql, ...args);
  const cloudCount = (sql: string, ...args: unknown[]) => countAt(h.cloud.app.db, sql, ...args);
  const siteA = () => h.edges[0]!;

  /** Publishes rows as `site` on its own topic and waits until the cloud has applied or refused them. */
  async function publish(
    site: string,
    rows: Array<{ entity: string; id: string; data: Record<string, unknown> }>,
  ) {
    const box = boxes.get(site)!;
    const from = box.seq + 1;
    const hlc = `${String(Date.now()).padStart(13, '0')}-0000-${site}`;
    const wire = rows.map((r) => {
      box.seq += 1;
      return {
        seq: box.seq,
        entity: r.entity,
        id: r.id,
        op: 'upsert',
        hlc,
        data: { hlc, version: 1, ...r.data },
      };
    });
    const batch = {
      v: 1,
      site,
      stream: `${site}-stream`,
      from,
      to: box.seq,
      schemaV: SCHEMA_VERSION,
      rows: wire,
    };
    await box.client.publishAsync(`yards/${site}/up/changes`, JSON.stringify(batch), { qos: 1 });
    await waitFor(
      async () =>
        Number((await cloudValue('SELECT applied_remote_seq FROM sync_cursor WHERE peer = ?', site)) ?? 0) ===
        box.seq,
      { what: `the cloud applied ${site}'s rows up to ${box.seq}` },
    );
  }

  const letterId = async (site: string, entityId: string) =>
    Number(await cloudValue('SELECT id FROM dead_letter WHERE peer = ? AND entity_id = ?', site, entityId));
  const letterError = async (site: string, entityId: string) =>
    String(
      await cloudValue('SELECT error FROM dead_letter WHERE peer = ? AND entity_id = ?', site, entityId),
    );

  const stamps = { createdAt: now, updatedAt: now };
  /** What the stolen box sends: its own master data and records a site must never bring in. */
  const rowsOf = async (site: string, tag: string) => [
    {
      entity: 'yard',
      id: `y-own-${tag}`,
      data: {
        id: `y-own-${tag}`,
        code: `OWN${tag}`,
        name: `Own yard ${tag}`,
        timeZone: 'UTC',
        siteId: site,
        status: 'active',
        ...stamps,
      },
    },
    {
      entity: 'location',
      id: `l-own-${tag}`,
      data: {
        id: `l-own-${tag}`,
        yardId: `y-own-${tag}`,
        kind: 'spot',
        name: `S-${tag}`,
        capacity: 1,
        status: 'active',
        ...stamps,
      },
    },
    {
      entity: 'carrier',
      id: `c-own-${tag}`,
      data: { id: `c-own-${tag}`, name: `Own Freight ${tag}`, scac: 'OWNF', ...stamps },
    },
    {
      entity: 'user',
      id: `u-evil-${tag}`,
      data: {
        id: `u-evil-${tag}`,
        username: `evil-${tag}`,
        role: 'admin',
        yardIds: null,
        // The cloud admin's own password hash: the planted login would take the admin's password.
        passwordHash: await cloudValue("SELECT password_hash FROM app_user WHERE username = 'admin'"),
        disabled: 0,
        ...stamps,
      },
    },
    {
      entity: 'api_key',
      id: tag === 'x' ? KEY_ID : `k-evil-${tag}`,
      data: {
        id: tag === 'x' ? KEY_ID : `k-evil-${tag}`,
        name: 'evil',
        role: 'admin',
        yardIds: null,
        secretHash: createHash('sha256').update(KEY_SECRET).digest('hex'),
        createdBy: null,
        revokedAt: null,
        ...stamps,
      },
    },
    {
      entity: 'yard',
      id: `y-other-${tag}`,
      data: {
        id: `y-other-${tag}`,
        code: `OTH${tag}`,
        name: 'Their yard',
        timeZone: 'UTC',
        siteId: 'site-a',
        status: 'active',
        ...stamps,
      },
    },
    {
      entity: 'location',
      id: `l-other-${tag}`,
      data: {
        id: `l-other-${tag}`,
        yardId: a.yardId,
        kind: 'door',
        name: `EVIL-${tag}`,
        capacity: 1,
        status: 'active',
        ...stamps,
      },
    },
    {
      entity: 'setting',
      id: 'tasks.maxAssignedPerDriver',
      data: { name: 'tasks.maxAssignedPerDriver', value: '99', scope: 'global', updatedBy: null, ...stamps },
    },
    {
      entity: 'integration',
      id: `i-evil-${tag}`,
      data: {
        id: `i-evil-${tag}`,
        kind: 'milesight',
        name: 'Evil cameras',
        config: '{"secret":"s3cret"}',
        enabled: 1,
        ...stamps,
      },
    },
  ];

  it('a formerly standalone site: the preview shows per kind what would be adopted; only its own yards, locations and carriers apply', async () => {
    await publish('site-x', await rowsOf('site-x', 'x'));
    // Only rows adoption could ever take advise it.
    expect(await letterError('site-x', 'y-own-x')).toMatch(/^\[cloud-owned\] .*can review it for adoption/);
    for (const id of ['u-evil-x', KEY_ID, 'y-other-x', 'tasks.maxAssignedPerDriver', 'i-evil-x']) {
      const error = await letterError('site-x', id);
      expect(error).toMatch(/^\[cloud-owned\]/);
      expect(error).not.toMatch(/adopt/);
    }

    const preview = await h.cloud.client.get('/api/sync/sites/site-x/adoption');
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.wasStandalone).toBe(true);
    const kind = (entity: string) => preview.body.kinds.find((k: { entity: string }) => k.entity === entity);
    const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);
    expect(ids(kind('yard').adoptable)).toEqual(['y-own-x']);
    expect(kind('yard').adoptable[0].fields).toEqual({ code: 'OWNx', name: 'Own yard x', siteId: 'site-x' });
    expect(kind('yard').refused).toMatchObject([{ id: 'y-other-x', rule: 'other-site' }]);
    expect(ids(kind('location').adoptable)).toEqual(['l-own-x']);
    expect(kind('location').refused).toMatchObject([{ id: 'l-other-x', rule: 'other-site' }]);
    expect(ids(kind('carrier').adoptable)).toEqual(['c-own-x']);
    for (const entity of ['user', 'api_key', 'setting', 'integration']) {
      expect(kind(entity).adoptable, entity).toEqual([]);
      expect(
        kind(entity).refused.map((r: { rule: string }) => r.rule),
        entity,
      ).toEqual(['never-adopted']);
    }
    expect(kind('user').refused[0].fields).toEqual({ username: 'evil-x', role: 'admin', yardIds: null });
    // No hash or secret is shown.
    expect(preview.text).not.toMatch(/secretHash|passwordHash|s3cret|scrypt/);

    // Every letter at once, the way the old adoption took them: refused, nothing applies.
    const every = (await h.cloud.client.get('/api/sync/dead-letter?peer=site-x&limit=100')).body.items.map(
      (l: { id: number }) => l.id,
    );
    const all = await h.cloud.client.post('/api/sync/sites/site-x/adopt', { ids: every });
    expect(all.status, all.text).toBe(409);
    expect(all.body.code).toBe('not-adoptable');
    expect(await cloudCount("SELECT count(*) FROM yard WHERE id = 'y-own-x'")).toBe(0);
    expect((await h.cloud.client.post('/api/sync/sites/site-x/adopt', {})).status).toBe(400);

    const chosen = ['yard', 'location', 'carrier'].flatMap((e) =>
      kind(e).adoptable.map((r: { deadLetterId: number }) => r.deadLetterId),
    );
    const adopted = await h.cloud.client.post('/api/sync/sites/site-x/adopt', { ids: chosen.reverse() });
    expect(adopted.status, adopted.text).toBe(200);
    expect(adopted.body.adopted).toBe(3);
    expect(await cloudValue("SELECT site_id FROM yard WHERE id = 'y-own-x'")).toBe('site-x');
    expect(await cloudCount("SELECT count(*) FROM location WHERE id = 'l-own-x'")).toBe(1);
    expect(await cloudCount("SELECT count(*) FROM carrier WHERE id = 'c-own-x'")).toBe(1);
    await waitFor(() => count(siteA().app, "SELECT count(*) FROM carrier WHERE id = 'c-own-x'") === 1, {
      what: 'the adopted carrier at site-a',
    });

    // None of what a site may never bring in applied, here or at the other site.
    expect(await cloudCount("SELECT count(*) FROM app_user WHERE id = 'u-evil-x'")).toBe(0);
    expect(await cloudCount('SELECT count(*) FROM api_key WHERE id = ?', KEY_ID)).toBe(0);
    expect(await cloudCount("SELECT count(*) FROM yard WHERE id = 'y-other-x'")).toBe(0);
    expect(await cloudCount("SELECT count(*) FROM location WHERE id = 'l-other-x'")).toBe(0);
    expect(await cloudCount("SELECT count(*) FROM integration WHERE id = 'i-evil-x'")).toBe(0);
    expect(await cloudCount("SELECT count(*) FROM setting WHERE name = 'tasks.maxAssignedPerDriver'")).toBe(
      0,
    );
    expect(count(siteA().app, "SELECT count(*) FROM yard WHERE id = 'y-other-x'")).toBe(0);
    expect(count(siteA().app, "SELECT count(*) FROM location WHERE id = 'l-other-x'")).toBe(0);
    expect(count(siteA().app, "SELECT count(*) FROM app_user WHERE id = 'u-evil-x'")).toBe(0);
    for (const node of [h.cloud, siteA()]) {
      const login = await node.client
        .as(undefined)
        .post('/api/auth/login', { username: 'evil-x', password: 'admin-password-1' });
      expect(login.status, `${node.siteId}: ${login.text}`).toBe(401);
      const keyed = await node.client.as(`yk.${KEY_ID}.${KEY_SECRET}`).get('/api/yard');
      expect(keyed.status, node.siteId).toBe(401);
    }
    // The refused rows keep their letters, still naming the rule.
    expect(await letterError('site-x', 'u-evil-x')).toMatch(/^\[cloud-owned\]/);
    expect(await letterId('site-x', 'y-other-x')).toBeGreaterThan(0);
  });

  it('a site provisioned linked has nothing to adopt', async () => {
    await publish('site-y', await rowsOf('site-y', 'y'));
    const preview = await h.cloud.client.get('/api/sync/sites/site-y/adoption');
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.wasStandalone).toBe(false);
    const kinds = preview.body.kinds as Array<{
      entity: string;
      adoptable: unknown[];
      refused: Array<{ rule: string }>;
    }>;
    expect(kinds.map((k) => k.entity).sort()).toEqual([
      'api_key',
      'carrier',
      'integration',
      'location',
      'setting',
      'user',
      'yard',
    ]);
    for (const k of kinds) {
      expect(k.adoptable, k.entity).toEqual([]);
      expect(new Set(k.refused.map((r) => r.rule)), k.entity).toEqual(new Set(['linked-from-start']));
    }
    const own = [await letterId('site-y', 'y-own-y'), await letterId('site-y', 'c-own-y')];
    const adopt = await h.cloud.client.post('/api/sync/sites/site-y/adopt', { ids: own });
    expect(adopt.status, adopt.text).toBe(409);
    expect(adopt.body.code).toBe('site-linked-from-start');
    expect(await cloudCount("SELECT count(*) FROM yard WHERE id = 'y-own-y'")).toBe(0);
    expect(await cloudCount("SELECT count(*) FROM carrier WHERE id = 'c-own-y'")).toBe(0);
  });

  it('only an unscoped admin at the cloud previews or adopts', async () => {
    const scoped = await clientWithRole(h.cloud.client, 'admin', { yardIds: [a.yardId] });
    expect((await scoped.get('/api/sync/sites/site-x/adoption')).status).toBe(403);
    expect((await h.cloud.client.get('/api/sync/sites/nowhere/adoption')).status).toBe(404);
    const atEdge = await siteA().client.get('/api/sync/sites/site-a/adoption');
    expect(atEdge.status).toBe(409);
    expect(atEdge.body.code).toBe('not-cloud');
  });
});
