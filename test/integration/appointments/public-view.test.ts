import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { numberPlaceholders, PostgresWork, SqliteWork } from '../../../shared/db/sql-work.js';
import {
  AppointmentPublic,
  appointmentPublicWork,
  readAppointmentPublic,
} from '../../../shared/modules/appointments/public-view.js';
import { Client } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { bookableYard, NOW } from './fixture.js';

/**
 * The appointment as outsiders see it (shared/modules/appointments/public-view.ts): one read that
 * the pass, the webhook payloads and the email snapshot share, on both databases, in or out of a
 * transaction.
 */
describe.each(TEST_DIALECTS)('appointment public view (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  const clock = new ManualClock(Date.parse(NOW));
  let y: Awaited<ReturnType<typeof bookableYard>>;
  let booked: any;

  beforeAll(async () => {
    t = await startTestApp({ dialect, clock, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    y = await bookableYard(admin);
    const res = await admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      startAt: '2026-03-03T08:00:00-06:00',
      refs: ['PO-1', 'BOL-7'],
      trailerNumber: 'TR-9',
      truckPlate: 'IL 123',
      driverName: 'Sam Driver',
      driverPhone: '+1 312 555 0100',
      notes: 'yard only',
    });
    expect(res.status, res.text).toBe(201);
    booked = res.body;
  });
  afterAll(() => t.close());

  it('names the yard, door, load type and carrier, with times in the yard offset and nothing internal', async () => {
    const carrier = await admin.get(`/api/carrier/${y.carrierId}`);
    const view = await readAppointmentPublic(t.db.kysely, booked.id);
    expect(view).toEqual({
      id: booked.id,
      code: booked.code,
      yard: { id: y.yardId, name: expect.any(String), timeZone: 'America/Chicago' },
      doorName: 'Door 2',
      loadTypeName: 'Live unload',
      startAt: '2026-03-03T08:00:00-06:00',
      endAt: '2026-03-03T09:00:00-06:00',
      carrier: { id: y.carrierId, name: carrier.body.name },
      refs: ['PO-1', 'BOL-7'],
      trailerNumber: 'TR-9',
      truckPlate: 'IL 123',
      driverName: 'Sam Driver',
      status: 'scheduled',
      arrival: null,
      arrivedAt: null,
      dockedAt: null,
      completedAt: null,
      departedAt: null,
      noShowAt: null,
      cancelledAt: null,
      cancelReason: null,
      version: 1,
    });
    const yard = await admin.get(`/api/yard/${y.yardId}`);
    expect(view?.yard.name).toBe(yard.body.name);
    // The contract the OpenAPI document publishes accepts it, and it carries no phone or notes.
    expect(AppointmentPublic.parse(view)).toEqual(view);
    expect(JSON.stringify(view)).not.toContain('555');
    expect(JSON.stringify(view)).not.toContain('yard only');
  });

  it('follows a cancellation: status, time and reason, and the version', async () => {
    const other = await admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      startAt: '2026-03-03T10:00:00-06:00',
    });
    expect(other.status, other.text).toBe(201);
    clock.set('2026-03-02T15:30:00Z');
    const cancelled = await admin.post(`/api/appointment/${other.body.id}/cancel`, {
      reason: 'load not ready',
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const view = await readAppointmentPublic(t.db.kysely, other.body.id);
    expect(view).toMatchObject({
      status: 'cancelled',
      cancelledAt: '2026-03-02T09:30:00-06:00',
      cancelReason: 'load not ready',
      version: cancelled.body.version,
      refs: [],
      trailerNumber: null,
    });
  });

  it('reads inside a transaction what that transaction wrote, through Kysely and as SqlWork', async () => {
    const update = 'UPDATE appointment SET trailer_number = ? WHERE id = ?';
    const rollback = new Error('rollback');
    let inTx: unknown;
    let asWork: unknown;
    await expect(
      t.db.kysely.transaction().execute(async (trx) => {
        const text = dialect === 'postgres' ? numberPlaceholders(update) : update;
        await trx.executeQuery(CompiledQuery.raw(text, ['TR-NEW', booked.id]));
        inTx = await readAppointmentPublic(trx, booked.id);
        asWork =
          t.db.dialect === 'sqlite'
            ? new SqliteWork(t.db.sqlite).run(appointmentPublicWork(booked.id))
            : await new PostgresWork().run(trx, appointmentPublicWork(booked.id));
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(inTx).toMatchObject({
      id: booked.id,
      trailerNumber: 'TR-NEW',
      startAt: '2026-03-03T08:00:00-06:00',
    });
    expect(asWork).toEqual(inTx);
    expect((await readAppointmentPublic(t.db.kysely, booked.id))?.trailerNumber).toBe('TR-9');
  });

  it('answers null for an appointment that does not exist', async () => {
    expect(await readAppointmentPublic(t.db.kysely, 'no-such-id')).toBeNull();
    const work =
      t.db.dialect === 'sqlite'
        ? new SqliteWork(t.db.sqlite).run(appointmentPublicWork('no-such-id'))
        : await new PostgresWork().run(t.db.kysely, appointmentPublicWork('no-such-id'));
    expect(work).toBeNull();
  });
});
