import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import type { TestApp } from '../../helpers/test-app.js';
import type { MasterData } from './link-fixture.js';

/**
 * Appointment records written the way the modules write them: through ChangeCapture (the one way
 * to write a synced record), with a history row for each change. These sync tests exercise the
 * conflict and trust rules (docs/sync.md), not the booking rules, so they write the rows directly.
 */
type App = TestApp<AppDatabase>;

const HOUR = 3_600_000;

/** The yard's scheduling config and one load type (cloud-owned); returns the load type id. */
export async function schedulingAt(cloud: App, m: MasterData): Promise<string> {
  const { changes, kysely, clock } = cloud.core;
  const now = clock.now();
  await changes.insert(kysely, 'schedulingConfig', {
    yardId: m.yardId,
    enabled: 1,
    openHours: JSON.stringify({ 1: [{ from: '00:00', to: '24:00' }] }),
    createdAt: now,
    updatedAt: now,
  });
  const loadTypeId = newId();
  await changes.insert(kysely, 'loadType', {
    id: loadTypeId,
    yardId: m.yardId,
    name: 'Live unload',
    direction: 'inbound',
    durationMinutes: 60,
    createdAt: now,
    updatedAt: now,
  });
  return loadTypeId;
}

/** A booking at the cloud at `startAt` (an hour long) at the yard's door, with its history row. */
export async function bookAt(
  cloud: App,
  m: MasterData,
  loadTypeId: string,
  startAt: number,
  code: string,
): Promise<string> {
  const { changes, kysely, clock } = cloud.core;
  const now = clock.now();
  const id = newId();
  await kysely.transaction().execute(async (trx) => {
    await changes.insert(trx, 'appointment', {
      id,
      yardId: m.yardId,
      doorId: m.doorId,
      loadTypeId,
      startAt,
      endAt: startAt + HOUR,
      carrierId: m.carrierId,
      refs: JSON.stringify(['PO-1']),
      trailerNumber: `TR-${code}`,
      truckPlate: null,
      driverName: null,
      driverPhone: null,
      notes: null,
      code,
      overrideReason: null,
      createdBy: null,
      cancelledAt: null,
      cancelReason: null,
      createdAt: now,
      updatedAt: now,
    });
    await history(cloud, trx, id, m.yardId, 'booked', null, 'scheduled');
  });
  return id;
}

/** A reschedule at the cloud: a new start (same length), with its history row. */
export async function rescheduleAt(cloud: App, id: string, startAt: number): Promise<void> {
  const { changes, kysely } = cloud.core;
  await kysely.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('appointment')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    await changes.update(trx, 'appointment', id, { startAt, endAt: startAt + (row.endAt - row.startAt) });
    await history(cloud, trx, id, row.yardId, 'rescheduled', 'scheduled', 'scheduled');
  });
}

/** The truck of the appointment checked in at the site's gate (movement `movementId`), late. */
export async function arriveAt(edge: App, id: string, movementId: string): Promise<void> {
  const { changes, kysely, clock } = edge.core;
  await kysely.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('appointment')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    await changes.update(trx, 'appointment', id, { arrivedAt: clock.now(), arrival: 'late', movementId });
    await history(edge, trx, id, row.yardId, 'arrived', 'scheduled', 'arrived');
  });
}

/**
 * The site's no-show sweep: every appointment of its yards still scheduled (not arrived, not
 * cancelled, not a no-show) more than `afterMinutes` past its start becomes a no-show.
 */
export async function sweepAt(edge: App, afterMinutes = 60): Promise<string[]> {
  const { changes, kysely, clock } = edge.core;
  const now = clock.now();
  const due = await kysely
    .selectFrom('appointment')
    .selectAll()
    .where('arrivedAt', 'is', null)
    .where('cancelledAt', 'is', null)
    .where('noShowAt', 'is', null)
    .where('startAt', '<', now - afterMinutes * 60_000)
    .execute();
  for (const row of due) {
    await kysely.transaction().execute(async (trx) => {
      await changes.update(trx, 'appointment', row.id, { noShowAt: now });
      await history(edge, trx, row.id, row.yardId, 'no_show', 'scheduled', 'no_show');
    });
  }
  return due.map((r) => r.id);
}

async function history(
  app: App,
  trx: App['core']['kysely'],
  appointmentId: string,
  yardId: string,
  kind: string,
  fromStatus: string | null,
  toStatus: string | null,
): Promise<void> {
  const now = app.core.clock.now();
  await app.core.changes.insert(trx, 'appointmentEvent', {
    id: newId(),
    appointmentId,
    yardId,
    at: now,
    kind,
    fromStatus,
    toStatus,
    actorId: null,
    actorKind: 'system',
    reason: null,
    detail: null,
    createdAt: now,
  });
}
