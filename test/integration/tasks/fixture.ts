import { expect } from 'vitest';
import type { PublishedEvent } from '../../../shared/bus.js';
import type { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seed, seedRows } from '../../helpers/builders.js';
import { Client, query } from '../../helpers/http.js';
import type { TestDialect } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** Shared setup for the yard-task tests: a yard with locations, trailers and yard drivers. */
export interface TaskWorld {
  side: TaskSide;
  t: TestApp<AppDatabase>;
  admin: Client;
  clock: ManualClock;
  events: PublishedEvent[];
  yardId: string;
  otherYardId: string;
  spots: string[];
  door: string;
  foreignSpot: string;
  carrierId: string;
  trailerId: string;
  outsideTrailerId: string;
}

export const UNKNOWN_ID = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f';

/**
 * Where a task world runs: an edge (SQLite, its only database: the drivers' side, sessions,
 * auto-dispatch) or the cloud on either database (the staff's side: create, assign, cancel, lists,
 * summaries).
 */
export type TaskSide = { role: 'edge' } | { role: 'cloud'; dialect: TestDialect };

export const AT_EDGE: TaskSide = { role: 'edge' };

export async function startTaskWorld(
  clock: ManualClock,
  settings: Record<string, unknown> = {},
  side: TaskSide = AT_EDGE,
) {
  const t =
    side.role === 'edge'
      ? await startTestApp({ clock })
      : await startTestApp({ clock, dialect: side.dialect, env: { YARD_ROLE: 'cloud' } });
  const admin = new Client(t.url, t.adminToken);
  if (side.role === 'cloud') {
    // The site of the seeded yards, registered: the cloud logs their records for it.
    await query(
      t.db,
      'INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)',
      'site-1',
      'Site 1',
      '$7$unused',
      Date.now(),
    );
  }
  const events: PublishedEvent[] = [];
  t.core.bus.subscribe((e) => events.push(e));
  const rowsOf = seedRows(t);
  const yardId = await rowsOf.yard('DAL');
  const otherYardId = await rowsOf.yard('HOU');
  const spots = [await rowsOf.location(yardId, 'A-01'), await rowsOf.location(yardId, 'A-02')];
  const door = await rowsOf.location(yardId, 'D-01', 'door');
  const foreignSpot = await rowsOf.location(otherYardId, 'H-01');
  const carrierId = await rowsOf.carrier('Acme', { scac: 'ACME' });
  const trailer = (number: string, inYard: string | null, locationId: string | null) =>
    rowsOf.trailer({ carrierId, number, yardId: inYard, locationId, arrivedAt: inYard ? clock.now() : null });
  const trailerId = await trailer('TR-1', yardId, spots[0]!);
  const outsideTrailerId = await trailer('TR-2', null, null);
  // The tasks' settings are site settings, set at the edge (the cloud answers 409 edge-owned); the
  // cloud never dispatches on its own, which is all its worlds ask of them (tasks.autoAssign false).
  if (side.role === 'edge' && Object.keys(settings).length > 0) {
    const res = await admin.put('/api/settings', { settings });
    expect(res.status, res.text).toBe(200);
  }
  const world: TaskWorld = {
    side,
    t,
    admin,
    clock,
    events,
    yardId,
    otherYardId,
    spots,
    door,
    foreignSpot,
    carrierId,
    trailerId,
    outsideTrailerId,
  };
  return world;
}

/** A yard driver with code and PIN, logged in: its id and a client acting as it. */
export const yardDriver = (w: TaskWorld, firstName = 'Jo'): Promise<{ id: string; client: Client }> =>
  seed(w.admin).yardDriver({ firstName });

/** The world of the manual-assignment tests: no auto-dispatch, Jo and Kim on shift (sessions open at the edge). */
export async function startTwoDriverWorld(clock: ManualClock, side: TaskSide = AT_EDGE) {
  const w = await startTaskWorld(
    clock,
    { 'tasks.autoAssign': false, 'tasks.maxAssignedPerDriver': 20 },
    side,
  );
  const jo = await yardDriver(w, 'Jo');
  const kim = await yardDriver(w, 'Kim');
  // Sessions are the edge's (opened on the drivers' phones there; the cloud answers 409 edge-owned).
  if (side.role === 'edge') {
    await openSession(w, jo.id);
    await openSession(w, kim.id);
  }
  return { w, jo, kim };
}

/**
 * An open driver session written directly (the drivers' own API is tested elsewhere). Sessions are
 * the edge's: at the cloud the row is stored as the sync applier stores what an edge sent.
 */
export async function openSession(
  w: TaskWorld,
  driverId: string,
  yardId = w.yardId,
  startedAt = w.clock.now(),
) {
  if (w.side.role === 'cloud') {
    const id = newId();
    await query(
      w.t.db,
      `INSERT INTO driver_session (id, driver_id, yard_id, device_id, started_at, last_check_at, created_at, updated_at, hlc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'edge')`,
      id,
      driverId,
      yardId,
      `phone-${driverId.slice(-4)}`,
      startedAt,
      w.clock.now(),
      startedAt,
      startedAt,
    );
    return id;
  }
  const row = await w.t.core.changes.insert(w.t.core.kysely, 'driverSession', {
    id: newId(),
    driverId,
    yardId,
    deviceId: `phone-${driverId.slice(-4)}`,
    startedAt,
    endedAt: null,
    endReason: null,
    lastCheckAt: w.clock.now(),
    lastLat: null,
    lastLon: null,
    lastLocationAt: null,
    createdAt: startedAt,
    updatedAt: startedAt,
  });
  return row.id;
}

/** Heartbeat written directly: the session's lastCheckAt is now. */
export async function heartbeat(w: TaskWorld, sessionId: string) {
  await w.t.core.changes.update(w.t.core.kysely, 'driverSession', sessionId, { lastCheckAt: w.clock.now() });
}

export async function endSession(w: TaskWorld, sessionId: string) {
  await w.t.core.changes.update(w.t.core.kysely, 'driverSession', sessionId, { endedAt: w.clock.now() });
}

export async function setSettings(w: TaskWorld, settings: Record<string, unknown>) {
  const res = await w.admin.put('/api/settings', { settings });
  expect(res.status, res.text).toBe(200);
}

export const createTask = (w: TaskWorld, body: Record<string, unknown> = {}) =>
  seed(w.admin).task(w.yardId, body);

export const count = async (w: TaskWorld, table: string) =>
  (await query(w.t.db, `SELECT count(*) AS n FROM ${table}`))[0].n as number;

/** Counts of every table a task write touches, to prove a refused request changed nothing. */
export const snapshot = async (w: TaskWorld) => ({
  tasks: await count(w, 'yard_task'),
  events: await count(w, 'task_event'),
  changeLog: await count(w, 'change_log'),
  versions: await query(w.t.db, 'SELECT id, status, version FROM yard_task ORDER BY id'),
  trailers: await query(w.t.db, 'SELECT id, location_id, version FROM trailer ORDER BY id'),
});

/** A driver's start / complete / cancel of one task through the drivers' API: the one result. */
export async function act(
  driver: Client,
  op: 'start' | 'complete' | 'cancel',
  taskId: string,
  extra: Record<string, unknown> = {},
) {
  const res = await driver.post(`/api/yard-task/driver/${op}`, { taskIds: [taskId], ...extra });
  expect(res.status, res.text).toBe(200);
  return res.body.results[0] as {
    ok: boolean;
    task?: any;
    error?: { status: number; code: string; detail: string };
  };
}

/** Another yard (dispatch tests give each case its own yard so drivers and queues do not mix). */
export const newYard = (w: TaskWorld, code: string, timeZone = 'America/Chicago'): Promise<string> =>
  seedRows(w.t).yard(code, { timeZone });
