import { expect } from 'vitest';
import type { PublishedEvent } from '../../../shared/bus.js';
import type { ManualClock } from '../../../shared/clock.js';
import { newId } from '../../../shared/ids.js';
import { seed, seedRows } from '../../helpers/builders.js';
import { Client, rows } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** Shared setup for the yard-task tests: a yard with locations, trailers and yard drivers. */
export interface TaskWorld {
  t: TestApp;
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

export async function startTaskWorld(clock: ManualClock, settings: Record<string, unknown> = {}) {
  const t = await startTestApp({ clock });
  const admin = new Client(t.url, t.adminToken);
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
  if (Object.keys(settings).length > 0) {
    const res = await admin.put('/api/settings', { settings });
    expect(res.status, res.text).toBe(200);
  }
  const world: TaskWorld = {
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

/** The world of the manual-assignment tests: no auto-dispatch, Jo and Kim on shift (sessions open). */
export async function startTwoDriverWorld(clock: ManualClock) {
  const w = await startTaskWorld(clock, { 'tasks.autoAssign': false, 'tasks.maxAssignedPerDriver': 20 });
  const jo = await yardDriver(w, 'Jo');
  const kim = await yardDriver(w, 'Kim');
  await openSession(w, jo.id);
  await openSession(w, kim.id);
  return { w, jo, kim };
}

/** An open driver session written directly (the drivers' own API is tested elsewhere). */
export async function openSession(
  w: TaskWorld,
  driverId: string,
  yardId = w.yardId,
  startedAt = w.clock.now(),
) {
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

export const count = (w: TaskWorld, table: string) =>
  rows(w.t.db, `SELECT count(*) AS n FROM ${table}`)[0].n as number;

/** Counts of every table a task write touches, to prove a refused request changed nothing. */
export const snapshot = (w: TaskWorld) => ({
  tasks: count(w, 'yard_task'),
  events: count(w, 'task_event'),
  changeLog: count(w, 'change_log'),
  versions: rows(w.t.db, 'SELECT id, status, version FROM yard_task ORDER BY id'),
  trailers: rows(w.t.db, 'SELECT id, location_id, version FROM trailer ORDER BY id'),
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
