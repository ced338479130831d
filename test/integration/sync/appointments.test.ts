import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { SCHEMA_VERSION } from '../../../shared/db/migrate.js';
import { ConflictError } from '../../../shared/http/errors.js';
import { newId } from '../../../shared/ids.js';
import {
  type ChecksumFilter,
  type EntityChecksums,
  entityChecksums,
  entityChecksumsPostgres,
} from '../../../shared/sync/checksum.js';
import { query } from '../../helpers/http.js';
import { connectOnce } from '../../helpers/mqtt-client.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { type SyncHarness, startSyncHarness } from '../../helpers/sync-harness.js';
import { waitFor } from '../../helpers/wait-for.js';
import { arriveAt, bookAt, rescheduleAt, schedulingAt, sweepAt } from './appointments-fixture.js';
import { checkIn, cloudMasterData, count, countAt, type MasterData, valueAt } from './link-fixture.js';

const APPOINTMENT_ENTITIES = ['scheduling_config', 'load_type', 'appointment', 'appointment_event'];
const MINUTE = 60_000;

/**
 * docs/sync.md "Conflict rules" and "Trust": appointments are split by field. The cloud books; the
 * yard's site records arrivals, docking and no-shows; each side's fields win; the records go only
 * to the site of the appointment's yard. A real cloud, two real edges (site-a, site-b) over a real
 * broker; site-x is a stolen box publishing forged batches on its own topic.
 */
describe.each(TEST_DIALECTS)('appointments split by field (cloud on %s)', (dialect) => {
  let h: SyncHarness;
  let a: MasterData;
  let b: MasterData;
  let x: MasterData;
  let attacker: MqttClient;
  let seq = 0;
  const loadTypes = new Map<string, string>();

  beforeAll(async () => {
    h = await startSyncHarness({ dialect, sites: ['site-a', 'site-b'] });
    await query(
      h.cloud.app.db,
      'INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)',
      'site-x',
      'Site site-x',
      '$7$unused',
      Date.now(),
    );
    a = await cloudMasterData(h.cloud.client, 'site-a', 'A');
    b = await cloudMasterData(h.cloud.client, 'site-b', 'B');
    x = await cloudMasterData(h.cloud.client, 'site-x', 'X');
    for (const m of [a, b, x]) loadTypes.set(m.yardId, await schedulingAt(h.cloud.app, m));
    const { connected } = connectOnce(h.broker.url, 'site-x', undefined, 'edge-site-x');
    attacker = await connected;
  }, 60_000);
  afterAll(async () => {
    await attacker?.endAsync();
    await h?.close();
  });

  const siteA = () => h.edges[0]!;
  const siteB = () => h.edges[1]!;
  const book = (m: MasterData, startAt: number, code: string) =>
    bookAt(h.cloud.app, m, loadTypes.get(m.yardId)!, startAt, code);
  const cloudRow = async (id: string) =>
    (await query(h.cloud.app.db, 'SELECT * FROM appointment WHERE id = ?', id))[0] as Record<string, unknown>;
  const edgeRow = (edge: SyncHarness['edges'][number], id: string) =>
    edge.app.db.sqlite.prepare('SELECT * FROM appointment WHERE id = ?').get(id) as
      | Record<string, unknown>
      | undefined;
  const atSite = (edge: SyncHarness['edges'][number], id: string) =>
    waitFor(() => edgeRow(edge, id) !== undefined, { what: `appointment ${id} at ${edge.siteId}` });

  describe('routing: only the site of the appointment’s yard gets its records', () => {
    it('config, load types, appointments and their history of yard A reach site-a only, of yard B site-b only', async () => {
      const start = Date.now() + 26 * 60 * MINUTE;
      const apA = await book(a, start, 'RTAAAAAA');
      const apB = await book(b, start, 'RTBBBBBB');
      await book(x, start, 'RTXXXXXX');
      await atSite(siteA(), apA);
      await atSite(siteB(), apB);
      // What each site's change log got: the cloud writes one log per site (docs/sync.md "Change capture").
      const peersOf = async (entity: string, where: string, ...args: unknown[]) =>
        (
          await query(
            h.cloud.app.db,
            `SELECT DISTINCT peer FROM change_log WHERE entity = ? AND entity_id IN (SELECT ${
              entity === 'scheduling_config' ? 'yard_id' : 'id'
            } FROM ${entity} WHERE ${where}) ORDER BY peer`,
            entity,
            ...args,
          )
        ).map((r) => r.peer);
      for (const entity of APPOINTMENT_ENTITIES) {
        expect(await peersOf(entity, 'yard_id = ?', a.yardId), entity).toEqual(['site-a']);
        expect(await peersOf(entity, 'yard_id = ?', b.yardId), entity).toEqual(['site-b']);
        expect(await peersOf(entity, 'yard_id = ?', x.yardId), entity).toEqual(['site-x']);
      }
      // And what each edge holds: its own yard's records, nothing of the other's.
      for (const [edge, own, other] of [
        [siteA(), a, b],
        [siteB(), b, a],
      ] as const) {
        for (const entity of APPOINTMENT_ENTITIES) {
          await waitFor(
            () => count(edge.app, `SELECT count(*) FROM ${entity} WHERE yard_id = ?`, own.yardId) > 0,
            {
              what: `${entity} of its own yard at ${edge.siteId}`,
            },
          );
          expect(
            count(edge.app, `SELECT count(*) FROM ${entity} WHERE yard_id <> ?`, own.yardId),
            entity,
          ).toBe(0);
          expect(count(edge.app, `SELECT count(*) FROM ${entity} WHERE yard_id = ?`, other.yardId)).toBe(0);
        }
      }
    });
  });

  describe('a linked edge answers booking writes 409 cloud-owned and records arrivals', () => {
    it('refuses a new booking, a reschedule, a cancel and a delete; lets the arrival through', async () => {
      const id = await book(a, Date.now() + 27 * 60 * MINUTE, 'GUARDAAA');
      await atSite(siteA(), id);
      const { changes, kysely, clock } = siteA().app.core;
      const attempts: Array<[string, () => Promise<unknown>]> = [
        [
          'reschedule',
          () => changes.update(kysely, 'appointment', id, { startAt: clock.now() + 30 * 60 * MINUTE }),
        ],
        [
          'cancel',
          () => changes.update(kysely, 'appointment', id, { cancelledAt: clock.now(), cancelReason: 'x' }),
        ],
        ['door', () => changes.update(kysely, 'appointment', id, { doorId: a.spotId })],
        ['delete', () => changes.delete(kysely, 'appointment', id)],
        [
          'book',
          async () =>
            changes.insert(kysely, 'appointment', {
              ...(await kysely
                .selectFrom('appointment')
                .selectAll()
                .where('id', '=', id)
                .executeTakeFirstOrThrow()),
              id: newId(),
              code: 'EDGEBOOK',
            }),
        ],
        ['load type', () => changes.update(kysely, 'loadType', loadTypes.get(a.yardId)!, { name: 'Mine' })],
      ];
      for (const [what, attempt] of attempts) {
        const err = await attempt().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, what).toBeInstanceOf(ConflictError);
        expect((err as ConflictError).status, what).toBe(409);
        expect((err as ConflictError).code, what).toBe('cloud-owned');
      }
      const before = edgeRow(siteA(), id)!;
      expect(before.start_at).toBe((await cloudRow(id)).start_at);
      expect(count(siteA().app, "SELECT count(*) FROM appointment WHERE code = 'EDGEBOOK'")).toBe(0);
      const arrived = await changes.update(kysely, 'appointment', id, { dockedAt: clock.now() });
      expect(arrived?.dockedAt).toBeTypeOf('number');
      await waitFor(async () => (await cloudRow(id)).docked_at === arrived?.dockedAt, {
        what: 'the docking time at the cloud',
      });
    });
  });

  describe('trust: what a site sends of an appointment', () => {
    const hlcAt = (ms: number) => `${String(ms).padStart(13, '0')}-0000-site-x`;
    const cloudValue = (sql: string, ...args: unknown[]) => valueAt(h.cloud.app.db, sql, ...args);
    const deadLetter = (entityId: string) =>
      cloudValue(
        "SELECT error FROM dead_letter WHERE peer = 'site-x' AND entity_id = ? ORDER BY id DESC",
        entityId,
      ) as Promise<string | undefined>;

    /** Publishes rows as site-x and waits until the cloud has applied (or dead-lettered) them. */
    async function send(
      rows: Array<{
        entity: string;
        id: string;
        op?: 'upsert' | 'delete';
        data: Record<string, unknown>;
        hlc: string;
      }>,
    ) {
      const from = seq + 1;
      const wire = rows.map((r) => {
        seq += 1;
        return { seq, entity: r.entity, id: r.id, op: r.op ?? 'upsert', hlc: r.hlc, data: r.data };
      });
      const batch = {
        v: 1,
        site: 'site-x',
        stream: 'appointments-stolen-box',
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

    /** The cloud's row as site-x holds it (camelCase), with every field's clock as sent. */
    async function copyOf(id: string, fields: Record<string, unknown>, hlc: string) {
      const row = await h.cloud.app.core.kysely
        .selectFrom('appointment')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      const clocks = JSON.parse(row.fieldHlc) as Record<string, string>;
      for (const f of Object.keys(fields)) clocks[f] = hlc;
      return { ...row, ...fields, hlc, fieldHlc: JSON.stringify(clocks), version: row.version + 1 };
    }

    it('a site’s forged booking change is refused (dead letter naming the rule); the booking stays the cloud’s', async () => {
      const start = Date.now() + 28 * 60 * MINUTE;
      const id = await book(x, start, 'FORGEXXX');
      const before = await cloudRow(id);
      const later = hlcAt(Date.now() + 1000);
      await send([
        {
          entity: 'appointment',
          id,
          hlc: later,
          data: await copyOf(
            id,
            { startAt: start + 60 * MINUTE, endAt: start + 120 * MINUTE, arrivedAt: Date.now() },
            later,
          ),
        },
      ]);
      expect(await deadLetter(id)).toBe(
        `[booking-field] site site-x, appointment ${id}: a site may not change startAt, endAt of an appointment: bookings are made and changed at the cloud`,
      );
      expect(await cloudRow(id)).toEqual(before);

      const cancelHlc = hlcAt(Date.now() + 2000);
      await send([
        {
          entity: 'appointment',
          id,
          hlc: cancelHlc,
          data: await copyOf(id, { cancelledAt: Date.now(), cancelReason: 'gone' }, cancelHlc),
        },
      ]);
      expect(await deadLetter(id)).toMatch(
        /^\[booking-field\] .* may not change cancelledAt, cancelReason of an appointment/,
      );
      expect(await cloudRow(id)).toEqual(before);

      // The same site's arrival, on its own: applied.
      const arrivalHlc = hlcAt(Date.now() + 3000);
      const arrivedAt = Date.now();
      await send([
        {
          entity: 'appointment',
          id,
          hlc: arrivalHlc,
          data: await copyOf(id, { arrivedAt, arrival: 'early' }, arrivalHlc),
        },
      ]);
      expect(await cloudRow(id)).toMatchObject({
        start_at: before.start_at,
        arrived_at: arrivedAt,
        arrival: 'early',
      });
    });

    it('a site never creates or deletes an appointment, never touches another site’s, never its config or load types', async () => {
      const id = await book(x, Date.now() + 29 * 60 * MINUTE, 'CREATEXX');
      const ofA = await book(a, Date.now() + 29 * 60 * MINUTE, 'OTHERAAA');
      const hlc = hlcAt(Date.now() + 4000);
      const planted = { ...(await copyOf(id, {}, hlc)), id: 'ap-planted', code: 'PLANTEDX' };
      await send([
        { entity: 'appointment', id: 'ap-planted', hlc, data: planted },
        { entity: 'appointment', id, op: 'delete', hlc, data: { id } },
        {
          entity: 'appointment',
          id: ofA,
          hlc,
          data: { ...(await copyOf(ofA, { arrivedAt: Date.now() }, hlc)) },
        },
        {
          entity: 'load_type',
          id: loadTypes.get(x.yardId)!,
          hlc,
          data: {
            id: loadTypes.get(x.yardId)!,
            yardId: x.yardId,
            name: 'Mine',
            direction: 'both',
            durationMinutes: 5,
            createdAt: 1,
            updatedAt: 1,
            version: 9,
          },
        },
        {
          entity: 'scheduling_config',
          id: x.yardId,
          hlc,
          data: { yardId: x.yardId, enabled: 0, createdAt: 1, updatedAt: 1, version: 9 },
        },
      ]);
      expect(await deadLetter('ap-planted')).toBe(
        '[site-scope] a site may not create an appointment: bookings are made and changed at the cloud',
      );
      expect(await deadLetter(id)).toBe(
        '[site-scope] a site may not delete an appointment: bookings are made and changed at the cloud',
      );
      expect(await deadLetter(ofA)).toBe(`[other-site] appointment ${ofA} is not in a yard of site site-x`);
      expect(await deadLetter(loadTypes.get(x.yardId)!)).toMatch(/^\[cloud-owned\] load_type /);
      expect(await deadLetter(x.yardId)).toMatch(/^\[cloud-owned\] scheduling_config /);
      expect(await countAt(h.cloud.app.db, "SELECT count(*) FROM appointment WHERE id = 'ap-planted'")).toBe(
        0,
      );
      expect(await countAt(h.cloud.app.db, 'SELECT count(*) FROM appointment WHERE id = ?', id)).toBe(1);
      expect(
        await countAt(h.cloud.app.db, 'SELECT count(*) FROM sync_tombstone WHERE entity_id = ?', id),
      ).toBe(0);
      expect((await cloudRow(ofA)).arrived_at).toBeNull();
      expect(await cloudValue('SELECT name FROM load_type WHERE id = ?', loadTypes.get(x.yardId))).toBe(
        'Live unload',
      );
      expect(await cloudValue('SELECT enabled FROM scheduling_config WHERE yard_id = ?', x.yardId)).toBe(1);
    });
  });

  describe('convergence', () => {
    /** Per appointment entity (and movement): count and checksum of yard A's rows. */
    async function shareOfA(db: AppDatabase): Promise<EntityChecksums> {
      const filter: ChecksumFilter = (entity) =>
        [...APPOINTMENT_ENTITIES, 'movement'].includes(entity.entity) ? `yard_id = '${a.yardId}'` : '1 = 0';
      const all =
        db.dialect === 'sqlite'
          ? entityChecksums(db.sqlite, filter)
          : await entityChecksumsPostgres(db.pool, filter);
      return Object.fromEntries([...APPOINTMENT_ENTITIES, 'movement'].map((e) => [e, all[e]!]));
    }

    it('site offline while a truck arrives, the booking rescheduled at the cloud, the no-show sweep run: same rows after, arrival kept', async () => {
      const now = Date.now();
      const arriving = await book(a, now - 20 * MINUTE, 'ARRIVING');
      const missed = await book(a, now - 3 * 60 * MINUTE, 'MISSEDAA');
      await atSite(siteA(), arriving);
      await atSite(siteA(), missed);
      await waitFor(
        async () =>
          JSON.stringify(await shareOfA(h.cloud.app.db)) === JSON.stringify(await shareOfA(siteA().app.db)),
        {
          what: 'site-a holding the cloud’s bookings',
        },
      );

      await h.cut(siteA());
      // At the site, offline: the truck checks in, its appointment arrives; then the sweep runs.
      const { movementId } = await checkIn(siteA().client, a, 'TR-ARRIVING');
      await arriveAt(siteA().app, arriving, movementId);
      const swept = await sweepAt(siteA().app);
      expect(swept).toEqual([missed]);
      const arrival = edgeRow(siteA(), arriving)!;
      // At the cloud, meanwhile (and later than the arrival): the booking moves half an hour on.
      await new Promise((r) => setTimeout(r, 20));
      const newStart = now + 10 * MINUTE;
      await rescheduleAt(h.cloud.app, arriving, newStart);

      await h.restore(siteA());
      let last = '';
      await waitFor(
        async () => {
          const [cloud, edge] = [await shareOfA(h.cloud.app.db), await shareOfA(siteA().app.db)];
          last = JSON.stringify({ cloud, edge });
          return JSON.stringify(cloud) === JSON.stringify(edge);
        },
        { timeoutMs: 20_000, what: () => `cloud and site-a holding the same appointment rows: ${last}` },
      );
      const atCloud = await cloudRow(arriving);
      const atEdge = edgeRow(siteA(), arriving)!;
      expect(atEdge).toEqual(atCloud);
      expect(atCloud).toMatchObject({
        start_at: newStart,
        end_at: newStart + 60 * MINUTE,
        arrived_at: arrival.arrived_at,
        arrival: 'late',
        movement_id: movementId,
        no_show_at: null,
      });
      expect(await cloudRow(missed)).toMatchObject({ no_show_at: edgeRow(siteA(), missed)!.no_show_at });
      expect((await cloudRow(missed)).no_show_at).toBeTypeOf('number');
      // Both histories, from both sides, on both sides.
      const kinds = async (db: AppDatabase) =>
        (
          await query(
            db,
            'SELECT kind FROM appointment_event WHERE appointment_id = ? ORDER BY kind',
            arriving,
          )
        ).map((r) => r.kind);
      expect(await kinds(h.cloud.app.db)).toEqual(['arrived', 'booked', 'rescheduled']);
      expect(await kinds(siteA().app.db)).toEqual(['arrived', 'booked', 'rescheduled']);
      expect(await countAt(h.cloud.app.db, "SELECT count(*) FROM dead_letter WHERE peer = 'site-a'")).toBe(0);
    });
  });
});
