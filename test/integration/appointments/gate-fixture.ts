import type { Server } from 'node:http';
import { expect } from 'vitest';
import { SimulatedGates } from '../../../edge/hardware/simulated-gates.js';
import { createApp } from '../../../shared/app.js';
import type { PublishedEvent } from '../../../shared/bus.js';
import { CAMERA_PROVIDER_KINDS } from '../../../shared/cameras/providers/index.js';
import { loadConfig } from '../../../shared/config.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { Client, query } from '../../helpers/http.js';
import { ADMIN, loginAdmin, type TestApp } from '../../helpers/test-app.js';

/**
 * Appointments for the gate-side tests, written as rows (the booking rules are the booking tests'):
 * a load type and a scheduling config per yard, then appointments at chosen times.
 */
export function appointmentRows(t: TestApp<AppDatabase>) {
  const insert = (table: 'loadType' | 'schedulingConfig' | 'appointment', row: Record<string, unknown>) =>
    t.core.changes.insert(t.core.kysely, table, row as never) as Promise<Record<string, unknown>>;
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
    'SELECT kind, from_status, to_status, actor_kind, reason, at FROM appointment_event WHERE appointment_id = ? ORDER BY at, id',
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

/**
 * The test app's database served as an edge linked to a cloud that is out of reach (an MQTT URL
 * nothing answers; not started, so it never connects): its admin over real HTTP and its services.
 */
export async function serveOfflineLinkedEdge(seedApp: TestApp<AppDatabase>) {
  const config = loadConfig(
    {
      YARD_DATA_DIR: seedApp.dir,
      YARD_ADMIN_USER: ADMIN.username,
      YARD_ADMIN_PASSWORD: ADMIN.password,
      YARD_MQTT_URL: 'mqtt://127.0.0.1:9',
    },
    { validateResponses: true },
  );
  const yardApp = createApp({
    db: seedApp.db,
    config,
    clock: seedApp.core.clock,
    gates: new SimulatedGates(undefined, 0),
    cameras: {
      onvif: {
        describe: () => Promise.reject(new Error('no camera')),
        snapshot: () => Promise.reject(new Error('no camera')),
        discover: async () => [],
      },
      providers: CAMERA_PROVIDER_KINDS,
    },
  });
  const server = await new Promise<Server>((ok) => {
    const s = yardApp.app.listen(0, '127.0.0.1', () => ok(s));
  });
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const events: PublishedEvent[] = [];
  yardApp.core.bus.subscribe((e) => events.push(e));
  return {
    admin: new Client(url, await loginAdmin(url)),
    services: yardApp.services,
    syncMode: yardApp.core.profile.syncMode,
    events,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await yardApp.stop();
    },
  };
}
