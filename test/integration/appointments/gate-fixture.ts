import { expect } from 'vitest';
import type { PublishedEvent } from '../../../shared/bus.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { type Client, query } from '../../helpers/http.js';
import type { TestApp } from '../../helpers/test-app.js';

/**
 * Appointments for the gate-side tests, written as rows (the booking rules are the booking tests'):
 * a load type and a scheduling config per yard, then appointments at chosen times.
 */
export function appointmentRows(t: TestApp<AppDatabase>) {
  const insert = (table: 'loadType' | 'schedulingConfig' | 'appointment', row: Record<string, unknown>) =>
    t.core.changes.insert(t.core.kysely, table, row as never);
  const now = () => t.core.clock.now();
  let codes = 0;
  return {
    /** A scheduling config (lateGraceMinutes 15, noShowAfterMinutes 60 unless given). */
    config: (yardId: string, fields: Record<string, unknown> = {}) =>
      insert('schedulingConfig', {
        yardId,
        enabled: 1,
        openHours: JSON.stringify({}),
        createdAt: now(),
        updatedAt: now(),
        ...fields,
      }),
    loadType: async (yardId: string, name = 'Live unload'): Promise<string> =>
      (
        await insert('loadType', {
          id: newId(),
          yardId,
          name,
          direction: 'inbound',
          durationMinutes: 60,
          createdAt: now(),
          updatedAt: now(),
        })
      ).id as string,
    /** An appointment starting at `startAt` (ISO); returns its id and code. */
    appointment: async (f: {
      yardId: string;
      doorId: string;
      loadTypeId: string;
      carrierId: string;
      startAt: string;
      code?: string;
      trailerNumber?: string;
      extra?: Record<string, unknown>;
    }): Promise<{ id: string; code: string }> => {
      const start = Date.parse(f.startAt);
      const code = f.code ?? `GT${String(++codes).padStart(2, '0')}${newId().slice(-4).toUpperCase()}`;
      const row = await insert('appointment', {
        id: newId(),
        yardId: f.yardId,
        doorId: f.doorId,
        loadTypeId: f.loadTypeId,
        startAt: start,
        endAt: start + 3_600_000,
        carrierId: f.carrierId,
        refs: JSON.stringify(['PO-1']),
        trailerNumber: f.trailerNumber ?? null,
        truckPlate: null,
        driverName: null,
        driverPhone: null,
        notes: null,
        code,
        overrideReason: null,
        createdBy: null,
        cancelledAt: null,
        cancelReason: null,
        arrivedAt: null,
        arrival: null,
        movementId: null,
        dockedAt: null,
        completedAt: null,
        departedAt: null,
        noShowAt: null,
        createdAt: now(),
        updatedAt: now(),
        ...f.extra,
      });
      return { id: row.id as string, code };
    },
  };
}

/** The stored appointment row (column names as in SQL). */
export async function appointmentRow(db: AppDatabase, id: string) {
  return (await query(db, 'SELECT * FROM appointment WHERE id = ?', id))[0];
}

/** The appointment's history, oldest first: kind, from, to, actor kind, reason. */
export async function historyOf(db: AppDatabase, id: string) {
  return query(
    db,
    'SELECT kind, from_status, to_status, actor_kind, reason, at FROM appointment_event WHERE appointment_id = ? ORDER BY at, created_at, kind',
    id,
  );
}

/** The `appointment.changed` events published for this appointment, in order. */
export function changedEvents(events: PublishedEvent[], id: string) {
  return events.filter(
    (e): e is PublishedEvent<'appointment.changed'> => e.type === 'appointment.changed' && e.data.id === id,
  );
}

/** A check-in (201 expected); the movement as answered. */
export async function checkIn(api: Client, body: Record<string, unknown>) {
  const res = await api.post('/api/movement', { direction: 'in', ...body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
