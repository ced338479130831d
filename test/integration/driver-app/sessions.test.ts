import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { newId } from '../../../shared/ids.js';
import { type Client, clientWithRole, rows } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { DriverAppWorld, UNKNOWN_ID } from './fixtures.js';

let t: TestApp;
let w: DriverAppWorld;
const clock = new ManualClock(Date.parse('2026-04-01T06:00:00Z'));
const BASE = '/api/yard-task/driver';
const iso = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  t = await startTestApp({ clock });
  w = new DriverAppWorld(t);
});
afterAll(() => t.close());

const count = (sql: string, ...params: unknown[]) => rows(t.db, sql, ...params)[0].n as number;
const changeLogCount = (entity: string) =>
  count('SELECT count(*) AS n FROM change_log WHERE entity = ?', entity);
const eventsSince = (seq: number) => t.core.bus.since(seq);
const lastSeq = () => t.core.bus.since(0).at(-1)?.seq ?? 0;

describe('driver sessions', () => {
  it('starts a session, answers it, logs it for sync and tells the yard', async () => {
    const yardId = await w.yard();
    const d = await w.driver();
    const seq = lastSeq();
    const res = await d.client.post(`${BASE}/session/start`, { yardId, deviceId: 'phone-1' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      driverId: d.id,
      yardId,
      deviceId: 'phone-1',
      startedAt: iso(clock.now()),
      endedAt: null,
      endReason: null,
      lastCheckAt: null,
      lastLocation: null,
      active: true,
      version: 1,
    });
    const [row] = rows(t.db, 'SELECT * FROM driver_session WHERE id = ?', res.body.id);
    expect(row).toMatchObject({ driver_id: d.id, yard_id: yardId, ended_at: null, started_at: clock.now() });
    expect(
      rows(t.db, "SELECT op FROM change_log WHERE entity = 'driver_session' AND entity_id = ?", res.body.id),
    ).toEqual([{ op: 'upsert' }]);
    const started = eventsSince(seq).filter((e) => e.type === 'driver.session.started');
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ yardId, driverId: d.id, data: { id: res.body.id } });
  });

  it('a new session ends the previous one with reason replaced; one session stays open', async () => {
    const [yardA, yardB] = [await w.yard(), await w.yard()];
    const d = await w.driver();
    const first = await d.client.post(`${BASE}/session/start`, { yardId: yardA });
    clock.advance(60_000);
    const seq = lastSeq();
    const second = await d.client.post(`${BASE}/session/start`, { yardId: yardB });
    expect(second.status).toBe(201);
    const sessions = rows(
      t.db,
      'SELECT id, yard_id, ended_at, end_reason FROM driver_session WHERE driver_id = ? ORDER BY started_at',
      d.id,
    );
    expect(sessions).toEqual([
      { id: first.body.id, yard_id: yardA, ended_at: clock.now(), end_reason: 'replaced' },
      { id: second.body.id, yard_id: yardB, ended_at: null, end_reason: null },
    ]);
    expect(eventsSince(seq).map((e) => [e.type, e.yardId])).toEqual(
      expect.arrayContaining([
        ['driver.session.ended', yardA],
        ['driver.session.started', yardB],
      ]),
    );
    expect((await t.services.driverApp.activeSession(d.id))?.id).toBe(second.body.id);
  });

  it('ends the open session; ending again is 409 no-active-session', async () => {
    const yardId = await w.yard();
    const d = await w.driver();
    await d.client.post(`${BASE}/session/start`, { yardId });
    clock.advance(1000);
    const seq = lastSeq();
    const end = await d.client.post(`${BASE}/session/end`);
    expect(end.status, end.text).toBe(200);
    expect(end.body).toMatchObject({
      active: false,
      endedAt: iso(clock.now()),
      endReason: 'ended',
      version: 2,
    });
    expect(eventsSince(seq).map((e) => e.type)).toContain('driver.session.ended');
    expect(await t.services.driverApp.activeSession(d.id)).toBeUndefined();

    const again = await d.client.post(`${BASE}/session/end`, { reason: 'shift over' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('no-active-session');
  });

  it('bad input to session start: 400 per field, unknown yard 404, and nothing written', async () => {
    const d = await w.driver();
    const before = count('SELECT count(*) AS n FROM driver_session');
    const logBefore = changeLogCount('driver_session');
    const bad = await d.client.post(`${BASE}/session/start`, { yardId: 'nope', deviceId: '', extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation-failed');
    expect(bad.body.errors.map((e: any) => e.path)).toEqual(
      expect.arrayContaining(['body.yardId', 'body.deviceId', 'body']),
    );
    expect((await d.client.post(`${BASE}/session/start`, {})).status).toBe(400);
    const unknown = await d.client.post(`${BASE}/session/start`, { yardId: UNKNOWN_ID });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('not-found');
    expect(count('SELECT count(*) AS n FROM driver_session')).toBe(before);
    expect(changeLogCount('driver_session')).toBe(logBefore);
  });

  it('only drivers use the drivers’ routes: staff get 403, no token 401', async () => {
    const yardId = await w.yard();
    const dispatcher = await clientWithRole(w.admin, 'dispatcher');
    for (const client of [w.admin, dispatcher]) {
      for (const [method, path, body] of [
        ['post', 'session/start', { yardId }],
        ['post', 'session/end', undefined],
        ['post', 'session/locations', { points: [{ at: iso(clock.now()), lat: 1, lon: 1 }] }],
        ['post', 'last-check', {}],
        ['post', 'notification-token', { deviceId: 'x', platform: 'android', token: 'abc' }],
        ['get', 'tasks', undefined],
        ['post', 'start', { taskIds: [UNKNOWN_ID] }],
        ['post', 'complete', { taskIds: [UNKNOWN_ID] }],
        ['post', 'cancel', { taskIds: [UNKNOWN_ID], reason: 'x' }],
      ] as const) {
        const res = await client.request(method.toUpperCase(), `${BASE}/${path}`, body);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.code).toBe('forbidden');
      }
    }
    expect((await w.admin.as(undefined).post(`${BASE}/session/start`, { yardId })).status).toBe(401);
  });
});

describe('heartbeat (last-check)', () => {
  it('updates lastCheckAt (and the last location when given) of the open session', async () => {
    const yardId = await w.yard();
    const d = await w.driver();
    const session = await d.client.post(`${BASE}/session/start`, { yardId });
    clock.advance(10_000);
    const beat = await d.client.post(`${BASE}/last-check`, {
      at: iso(clock.now() - 500),
      lat: 38.7,
      lon: -9.1,
      battery: 81,
    });
    expect(beat.status, beat.text).toBe(200);
    expect(beat.body.serverTime).toBe(iso(clock.now()));
    expect(beat.body.session).toMatchObject({
      id: session.body.id,
      lastCheckAt: iso(clock.now()),
      lastLocation: { lat: 38.7, lon: -9.1, at: iso(clock.now()) },
    });
    clock.advance(10_000);
    const bare = await d.client.post(`${BASE}/last-check`);
    expect(bare.status, bare.text).toBe(200);
    const [row] = rows(
      t.db,
      'SELECT last_check_at, version FROM driver_session WHERE id = ?',
      session.body.id,
    );
    expect(row).toEqual({ last_check_at: clock.now(), version: 3 });
    expect(
      count(
        "SELECT count(*) AS n FROM change_log WHERE entity = 'driver_session' AND entity_id = ?",
        session.body.id,
      ),
    ).toBe(3);
  });

  it('no open session is 409; lat without lon and out-of-range values are 400', async () => {
    const d = await w.driver();
    const none = await d.client.post(`${BASE}/last-check`, {});
    expect(none.status).toBe(409);
    expect(none.body.code).toBe('no-active-session');
    await d.client.post(`${BASE}/session/start`, { yardId: await w.yard() });
    const half = await d.client.post(`${BASE}/last-check`, { lat: 10 });
    expect(half.status).toBe(400);
    expect(half.body.errors.map((e: any) => e.path)).toEqual(['body.lon']);
    const range = await d.client.post(`${BASE}/last-check`, { lat: 91, lon: 0, battery: 101 });
    expect(range.status).toBe(400);
    expect(range.body.errors.map((e: any) => e.path).sort()).toEqual(['body.battery', 'body.lat']);
  });
});

describe('session locations', () => {
  async function driverInSession(): Promise<{ client: Client; sessionId: string; startedAt: number }> {
    const yardId = await w.yard();
    const d = await w.driver();
    const s = await d.client.post(`${BASE}/session/start`, { yardId });
    expect(s.status).toBe(201);
    return { client: d.client, sessionId: s.body.id, startedAt: clock.now() };
  }

  it('stores a batch in one go, moves the session’s last location, logs every ping for sync', async () => {
    const { client, sessionId, startedAt } = await driverInSession();
    clock.advance(60_000);
    const points = [
      { at: iso(startedAt + 10_000), lat: 38.71, lon: -9.14, accuracyM: 5, speed: 2.5, heading: 90 },
      { at: iso(startedAt + 30_000), lat: 38.72, lon: -9.15 },
      { at: iso(startedAt + 20_000), lat: 38.73, lon: -9.16 },
    ];
    const res = await client.post(`${BASE}/session/locations`, { points });
    expect(res.status, res.text).toBe(200);
    expect(res.body.accepted).toBe(3);
    expect(res.body.session).toMatchObject({
      lastCheckAt: iso(clock.now()),
      lastLocation: { lat: 38.72, lon: -9.15, at: iso(startedAt + 30_000) },
    });
    const stored = rows(
      t.db,
      'SELECT at, lat, lon, accuracy_m, speed, heading FROM session_location WHERE session_id = ? ORDER BY at',
      sessionId,
    );
    expect(stored).toEqual([
      { at: startedAt + 10_000, lat: 38.71, lon: -9.14, accuracy_m: 5, speed: 2.5, heading: 90 },
      { at: startedAt + 20_000, lat: 38.73, lon: -9.16, accuracy_m: null, speed: null, heading: null },
      { at: startedAt + 30_000, lat: 38.72, lon: -9.15, accuracy_m: null, speed: null, heading: null },
    ]);
    const logged = count(
      "SELECT count(*) AS n FROM change_log WHERE entity = 'session_location' AND entity_id IN (SELECT id FROM session_location WHERE session_id = ?)",
      sessionId,
    );
    expect(logged).toBe(3);

    // An older batch arriving late is stored but does not move the last location back.
    const late = await client.post(`${BASE}/session/locations`, {
      points: [{ at: iso(startedAt + 5_000), lat: 1, lon: 1 }],
    });
    expect(late.status).toBe(200);
    expect(late.body.session.lastLocation).toEqual({ lat: 38.72, lon: -9.15, at: iso(startedAt + 30_000) });
  });

  it('accepts 500 points; 501 or none is 400 and nothing is stored', async () => {
    const { client, sessionId, startedAt } = await driverInSession();
    clock.advance(600_000);
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ at: iso(startedAt + i * 1000), lat: 38, lon: -9 }));
    const tooMany = await client.post(`${BASE}/session/locations`, { points: many(501) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors.map((e: any) => e.path)).toEqual(['body.points']);
    expect((await client.post(`${BASE}/session/locations`, { points: [] })).status).toBe(400);
    expect(count('SELECT count(*) AS n FROM session_location WHERE session_id = ?', sessionId)).toBe(0);
    const full = await client.post(`${BASE}/session/locations`, { points: many(500) });
    expect(full.status, full.text).toBe(200);
    expect(count('SELECT count(*) AS n FROM session_location WHERE session_id = ?', sessionId)).toBe(500);
  });

  it('points outside the session’s time are 400 naming each bad point; nothing is stored', async () => {
    const { client, sessionId, startedAt } = await driverInSession();
    clock.advance(120_000);
    const now = clock.now();
    const logBefore = changeLogCount('session_location');
    const res = await client.post(`${BASE}/session/locations`, {
      points: [
        { at: iso(startedAt - 31_000), lat: 38, lon: -9 }, // before the session, beyond the tolerance
        { at: iso(startedAt - 29_000), lat: 38, lon: -9 }, // within the clock tolerance
        { at: iso(now), lat: 38, lon: -9 },
        { at: iso(now + 31_000), lat: 38, lon: -9 }, // in the future
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: any) => e.path)).toEqual(['body.points[0].at', 'body.points[3].at']);
    expect(res.body.detail).toContain('0, 3');
    expect(count('SELECT count(*) AS n FROM session_location WHERE session_id = ?', sessionId)).toBe(0);
    expect(changeLogCount('session_location')).toBe(logBefore);
    const [session] = rows(t.db, 'SELECT last_lat, version FROM driver_session WHERE id = ?', sessionId);
    expect(session).toEqual({ last_lat: null, version: 1 });
  });

  it('the clock tolerance is exactly the documented 30 s on each side of the session', async () => {
    const { client, sessionId, startedAt } = await driverInSession();
    clock.advance(120_000);
    const now = clock.now();
    const edge = await client.post(`${BASE}/session/locations`, {
      points: [
        { at: iso(startedAt - 30_000), lat: 38, lon: -9 },
        { at: iso(now + 30_000), lat: 38, lon: -9 },
      ],
    });
    expect(edge.status, edge.text).toBe(200);
    const beyond = await client.post(`${BASE}/session/locations`, {
      points: [
        { at: iso(startedAt - 30_001), lat: 38, lon: -9 },
        { at: iso(now + 30_001), lat: 38, lon: -9 },
      ],
    });
    expect(beyond.status).toBe(400);
    expect(beyond.body.errors.map((e: any) => [e.path, e.code])).toEqual([
      ['body.points[0].at', 'outside-session'],
      ['body.points[1].at', 'outside-session'],
    ]);
    expect(count('SELECT count(*) AS n FROM session_location WHERE session_id = ?', sessionId)).toBe(2);
  });

  it('bad coordinates are 400 per field; no open session is 409', async () => {
    const { client, startedAt } = await driverInSession();
    const bad = await client.post(`${BASE}/session/locations`, {
      points: [
        { at: iso(startedAt), lat: 38, lon: -9 },
        { at: 'yesterday', lat: 95, lon: -181, accuracyM: -1, extra: true },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.path).sort()).toEqual([
      'body.points[1]',
      'body.points[1].accuracyM',
      'body.points[1].at',
      'body.points[1].lat',
      'body.points[1].lon',
    ]);
    await client.post(`${BASE}/session/end`);
    const ended = await client.post(`${BASE}/session/locations`, {
      points: [{ at: iso(clock.now()), lat: 38, lon: -9 }],
    });
    expect(ended.status).toBe(409);
    expect(ended.body.code).toBe('no-active-session');
  });
});

describe('location retention', () => {
  it('prunes pings older than locations.retentionDays locally, without sync tombstones', async () => {
    const yardId = await w.yard();
    const d = await w.driver();
    const s = await d.client.post(`${BASE}/session/start`, { yardId });
    const day = 24 * 60 * 60 * 1000;
    const now = clock.now();
    const ping = (at: number) => ({
      id: newId(),
      sessionId: s.body.id,
      at,
      lat: 38,
      lon: -9,
      accuracyM: null,
      speed: null,
      heading: null,
      createdAt: at,
    });
    await t.core.changes.insertMany(t.core.kysely, 'sessionLocation', [
      ping(now - 3 * day),
      ping(now - 2 * day - 1),
      ping(now - 2 * day + 60_000),
      ping(now - 1000),
    ]);
    await w.setting('locations.retentionDays', 2);
    const deletesBefore = count("SELECT count(*) AS n FROM change_log WHERE op = 'delete'");
    expect(await t.services.driverApp.pruneLocations()).toBe(2);
    expect(
      rows(t.db, 'SELECT at FROM session_location WHERE session_id = ? ORDER BY at', s.body.id).map(
        (r) => r.at,
      ),
    ).toEqual([now - 2 * day + 60_000, now - 1000]);
    expect(count("SELECT count(*) AS n FROM change_log WHERE op = 'delete'")).toBe(deletesBefore);
    expect(await t.services.driverApp.pruneLocations()).toBe(0);
  });

  it('start() prunes at once and keeps an hourly timer that stop() clears', async () => {
    const app = t.services.driverApp;
    app.start();
    app.start(); // idempotent
    app.stop();
    app.stop();
  });
});

describe('OpenAPI', () => {
  it('states the 30 s clock tolerance of location points in the route, the body and the at field', async () => {
    const doc = (await w.admin.get('/v3/api-docs')).body;
    const op = doc.paths[`${BASE}/session/locations`].post;
    const tolerance = /give or take 30 s of device clock drift/;
    expect(op.description).toMatch(tolerance);
    expect(op.description).toContain('outside-session');
    expect(op.requestBody.description).toMatch(tolerance);
    const body = doc.components.schemas.DriverLocations;
    expect(body.description).toMatch(tolerance);
    const at = body.properties.points.items.properties.at;
    expect(at.description).toMatch(tolerance);
    expect(at.description).toMatch(/device time/);
  });

  it('documents every drivers’ route under Yard Tasking, for the driver role', async () => {
    const doc = (await w.admin.get('/v3/api-docs')).body;
    const routes = [
      ['post', 'session/start'],
      ['post', 'session/end'],
      ['post', 'session/locations'],
      ['post', 'notification-token'],
      ['post', 'last-check'],
      ['get', 'tasks'],
      ['post', 'start'],
      ['post', 'complete'],
      ['post', 'cancel'],
    ] as const;
    for (const [method, path] of routes) {
      const op = doc.paths[`${BASE}/${path}`]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.tags).toEqual(['Yard Tasking']);
      expect(op['x-roles']).toEqual(['driver']);
    }
    expect(doc.components.schemas.DriverLocations.properties.points.maxItems).toBe(500);
  });
});
