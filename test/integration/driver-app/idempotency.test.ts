import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { requestFingerprint } from '../../../shared/http/idempotency.js';
import { SYNCED_SQL_TABLES } from '../../../shared/sync/entities.js';
import { seed } from '../../helpers/builders.js';
import { type Client, type Res, rows } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { DriverAppWorld } from './fixtures.js';

/**
 * The drivers' action routes take an Idempotency-Key (shared/http/idempotency.ts): a phone that
 * replays an action queued offline gets the first answer, and the action is applied once.
 */
let t: TestApp;
let w: DriverAppWorld;
const clock = new ManualClock(Date.parse('2026-04-01T06:00:00Z'));
const BASE = '/api/yard-task/driver';
const HOUR = 60 * 60 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  t = await startTestApp({ clock });
  w = new DriverAppWorld(t);
  await w.setting('tasks.autoAssign', false);
});
afterAll(() => t.close());

const key = () => ({ 'Idempotency-Key': randomUUID() });
const count = (sql: string, ...params: unknown[]) => rows(t.db, sql, ...params)[0].n as number;
const eventsOf = (taskId: string) =>
  rows(t.db, 'SELECT from_status, to_status FROM task_event WHERE task_id = ? ORDER BY at, id', taskId);
const statusOf = (taskId: string) =>
  rows(t.db, 'SELECT status FROM yard_task WHERE id = ?', taskId)[0].status;
const pointsOf = (sessionId: string) =>
  count('SELECT count(*) AS n FROM session_location WHERE session_id = ?', sessionId);

/** The same answer: status, body, and its media type. */
function expectSameAnswer(replay: Res, first: Res): void {
  expect(replay.status).toBe(first.status);
  expect(replay.text).toBe(first.text);
  expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
}

async function driverOnShift(): Promise<{ yardId: string; id: string; client: Client; sessionId: string }> {
  const yardId = await w.yard();
  const d = await w.driver();
  const s = await d.client.post(`${BASE}/session/start`, { yardId });
  expect(s.status, s.text).toBe(201);
  return { yardId, ...d, sessionId: s.body.id };
}

describe('a repeated action with one Idempotency-Key', () => {
  it('complete sent twice: one transition, one task event, the same answer, marked as replayed', async () => {
    const { yardId, id, client } = await driverOnShift();
    const taskId = await w.task(yardId, { driverId: id, status: 'IN_PROGRESS' });
    const headers = key();
    const first = await client.post(`${BASE}/complete`, { taskIds: [taskId] }, headers);
    expect(first.status, first.text).toBe(200);
    expect(first.body.results[0].ok).toBe(true);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    clock.advance(5_000);
    const replay = await client.post(`${BASE}/complete`, { taskIds: [taskId] }, headers);
    expectSameAnswer(replay, first);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(statusOf(taskId)).toBe('COMPLETED');
    expect(eventsOf(taskId)).toEqual([{ from_status: 'IN_PROGRESS', to_status: 'COMPLETED' }]);
    // Without a key the same request runs again, and meets the task already completed.
    const unkeyed = await client.post(`${BASE}/complete`, { taskIds: [taskId] });
    expect(unkeyed.body.results[0]).toMatchObject({ ok: false, error: { code: 'invalid-transition' } });
  });

  it('start and cancel: each applied once, the repeat answered from the first', async () => {
    const { yardId, id, client } = await driverOnShift();
    const toStart = await w.task(yardId, { driverId: id });
    const toCancel = await w.task(yardId, { driverId: id });
    const startKey = key();
    const started = await client.post(
      `${BASE}/start`,
      { taskIds: [toStart], lat: 38.7, lon: -9.1 },
      startKey,
    );
    expect(started.body.results[0].ok, started.text).toBe(true);
    expectSameAnswer(
      await client.post(`${BASE}/start`, { taskIds: [toStart], lat: 38.7, lon: -9.1 }, startKey),
      started,
    );
    const cancelKey = key();
    const body = { taskIds: [toCancel], reason: 'spot blocked' };
    const cancelled = await client.post(`${BASE}/cancel`, body, cancelKey);
    expect(cancelled.body.results[0].ok, cancelled.text).toBe(true);
    const again = await client.post(`${BASE}/cancel`, body, cancelKey);
    expectSameAnswer(again, cancelled);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(eventsOf(toStart)).toEqual([{ from_status: 'ASSIGNED', to_status: 'IN_PROGRESS' }]);
    expect(eventsOf(toCancel)).toEqual([{ from_status: 'ASSIGNED', to_status: 'CANCELLED' }]);
  });

  it('the same key with another body is 422 idempotency-key-reused and changes nothing', async () => {
    const { yardId, id, client } = await driverOnShift();
    const done = await w.task(yardId, { driverId: id, status: 'IN_PROGRESS' });
    const other = await w.task(yardId, { driverId: id, status: 'IN_PROGRESS' });
    const headers = key();
    expect((await client.post(`${BASE}/complete`, { taskIds: [done] }, headers)).status).toBe(200);
    const reused = await client.post(`${BASE}/complete`, { taskIds: [other] }, headers);
    expect(reused.status).toBe(422);
    expect(reused.headers.get('content-type')).toContain('application/problem+json');
    expect(reused.body.code).toBe('idempotency-key-reused');
    expect(statusOf(other)).toBe('IN_PROGRESS');
    expect(eventsOf(other)).toEqual([]);
    // The key still answers its own request.
    const replay = await client.post(`${BASE}/complete`, { taskIds: [done] }, headers);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // Another route is another operation: the key is free there.
    const cancel = await client.post(`${BASE}/cancel`, { taskIds: [other], reason: 'damaged' }, headers);
    expect(cancel.body.results[0].ok, cancel.text).toBe(true);
    expect(cancel.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a key is its driver’s: another driver’s request with the same key runs on its own', async () => {
    const a = await driverOnShift();
    const b = await driverOnShift();
    const taskA = await w.task(a.yardId, { driverId: a.id, status: 'IN_PROGRESS' });
    const taskB = await w.task(b.yardId, { driverId: b.id, status: 'IN_PROGRESS' });
    const headers = key();
    const fromA = await a.client.post(`${BASE}/complete`, { taskIds: [taskA] }, headers);
    const fromB = await b.client.post(`${BASE}/complete`, { taskIds: [taskB] }, headers);
    expect(fromB.status, fromB.text).toBe(200);
    expect(fromB.headers.get('idempotent-replayed')).toBeNull();
    expect(fromB.body.results[0]).toMatchObject({ taskId: taskB, ok: true });
    expect(fromA.body.results[0]).toMatchObject({ taskId: taskA, ok: true });
    // B's key does not reach A's task, and A's replay is still A's answer.
    expectSameAnswer(await a.client.post(`${BASE}/complete`, { taskIds: [taskA] }, headers), fromA);
    expect(eventsOf(taskA)).toHaveLength(1);
    expect(eventsOf(taskB)).toHaveLength(1);
  });

  it('takes the key plain or in the draft’s quoted form, as the same key', async () => {
    const { client, sessionId } = await driverOnShift();
    const k = randomUUID();
    const points = { points: [{ at: iso(clock.now()), lat: 38.7, lon: -9.1 }] };
    const first = await client.post(`${BASE}/session/locations`, points, { 'Idempotency-Key': `"${k}"` });
    expect(first.status, first.text).toBe(200);
    const replay = await client.post(`${BASE}/session/locations`, points, { 'Idempotency-Key': k });
    expectSameAnswer(replay, first);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(pointsOf(sessionId)).toBe(1);
  });
});

describe('the session routes', () => {
  it('session start twice: one session; end twice: ended once, the same answer', async () => {
    const yardId = await w.yard();
    const d = await w.driver();
    const startKey = key();
    const started = await d.client.post(`${BASE}/session/start`, { yardId, deviceId: 'phone-9' }, startKey);
    expect(started.status, started.text).toBe(201);
    const again = await d.client.post(`${BASE}/session/start`, { yardId, deviceId: 'phone-9' }, startKey);
    expectSameAnswer(again, started);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(rows(t.db, 'SELECT id, ended_at FROM driver_session WHERE driver_id = ?', d.id)).toEqual([
      { id: started.body.id, ended_at: null },
    ]);
    const endKey = key();
    const ended = await d.client.post(`${BASE}/session/end`, { reason: 'end of shift' }, endKey);
    expect(ended.status, ended.text).toBe(200);
    expectSameAnswer(await d.client.post(`${BASE}/session/end`, { reason: 'end of shift' }, endKey), ended);
    expect(count('SELECT count(*) AS n FROM driver_session WHERE driver_id = ?', d.id)).toBe(1);
  });

  it('a batch of locations sent twice is stored once', async () => {
    const { client, sessionId } = await driverOnShift();
    clock.advance(30_000);
    const points = [
      { at: iso(clock.now() - 20_000), lat: 38.71, lon: -9.14 },
      { at: iso(clock.now() - 10_000), lat: 38.72, lon: -9.15 },
    ];
    const headers = key();
    const first = await client.post(`${BASE}/session/locations`, { points }, headers);
    expect(first.status, first.text).toBe(200);
    clock.advance(60_000);
    expectSameAnswer(await client.post(`${BASE}/session/locations`, { points }, headers), first);
    expect(pointsOf(sessionId)).toBe(2);
  });

  it('notification token: a repeat is answered from the first', async () => {
    const { client } = await driverOnShift();
    const body = { deviceId: 'phone-2', platform: 'android', token: 'fcm-token-1' };
    const headers = key();
    const first = await client.post(`${BASE}/notification-token`, body, headers);
    expect(first.status, first.text).toBe(200);
    const replay = await client.post(`${BASE}/notification-token`, body, headers);
    expectSameAnswer(replay, first);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a handler’s error answer is kept: the repeat gets it again, a new key runs anew', async () => {
    const yardId = await w.yard();
    const d = await w.driver();
    const headers = key();
    const refused = await d.client.post(`${BASE}/session/end`, {}, headers);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('no-active-session');
    expect((await d.client.post(`${BASE}/session/start`, { yardId })).status).toBe(201);
    const replay = await d.client.post(`${BASE}/session/end`, {}, headers);
    expectSameAnswer(replay, refused);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(
      count('SELECT count(*) AS n FROM driver_session WHERE driver_id = ? AND ended_at IS NULL', d.id),
    ).toBe(1);
    expect((await d.client.post(`${BASE}/session/end`, {}, key())).status).toBe(200);
  });
});

describe('what is not kept', () => {
  it('a validation failure is not kept: the corrected request with the same key runs', async () => {
    const { yardId, id, client } = await driverOnShift();
    const taskId = await w.task(yardId, { driverId: id, status: 'IN_PROGRESS' });
    const headers = key();
    const bad = await client.post(`${BASE}/complete`, { taskIds: [taskId], lat: 200 }, headers);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation-failed');
    expect(statusOf(taskId)).toBe('IN_PROGRESS');
    const good = await client.post(`${BASE}/complete`, { taskIds: [taskId] }, headers);
    expect(good.status).toBe(200);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
    expect(good.body.results[0].ok).toBe(true);
  });

  it('a malformed key is 400 invalid-idempotency-key and runs nothing', async () => {
    const { yardId, id, client } = await driverOnShift();
    const taskId = await w.task(yardId, { driverId: id, status: 'IN_PROGRESS' });
    for (const bad of ['', 'k'.repeat(256), '"unterminated']) {
      const res = await client.post(`${BASE}/complete`, { taskIds: [taskId] }, { 'Idempotency-Key': bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.code).toBe('invalid-idempotency-key');
    }
    expect(statusOf(taskId)).toBe('IN_PROGRESS');
    expect(eventsOf(taskId)).toEqual([]);
    // 255 printable characters are a key.
    const longest = await client.post(
      `${BASE}/complete`,
      { taskIds: [taskId] },
      { 'Idempotency-Key': 'k'.repeat(255) },
    );
    expect(longest.status).toBe(200);
  });
});

describe('concurrent repeats and crashes', () => {
  it('duplicates sent at once: applied once; each answer is the first one or 409 in flight', async () => {
    const { client, sessionId } = await driverOnShift();
    const points = [{ at: iso(clock.now()), lat: 38.7, lon: -9.1 }];
    const headers = key();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => client.post(`${BASE}/session/locations`, { points }, headers)),
    );
    expect(pointsOf(sessionId)).toBe(1);
    const ran = answers.filter((a) => a.status === 200 && a.headers.get('idempotent-replayed') === null);
    expect(ran).toHaveLength(1);
    for (const a of answers) {
      if (a.status === 409) {
        expect(a.body.code).toBe('idempotency-key-in-flight');
        expect(a.headers.get('retry-after')).toBe('1');
      } else {
        expectSameAnswer(a, ran[0]!);
      }
    }
    // Once the first is done, a repeat gets its answer.
    expectSameAnswer(await client.post(`${BASE}/session/locations`, { points }, headers), ran[0]!);
  });

  it('a key left in flight by a stopped process: 409 in flight, then after the lease a final outcome-unknown, never run', async () => {
    const { yardId, id, client } = await driverOnShift();
    const taskId = await w.task(yardId, { driverId: id, status: 'IN_PROGRESS' });
    const k = randomUUID();
    const body = { taskIds: [taskId] };
    // What a run that stopped mid-request leaves: its row in flight, under its own owner.
    t.db.sqlite
      .prepare(
        `INSERT INTO idempotency_key (principal, method, route, key, fingerprint, state, owner, started_at, expires_at)
         VALUES (?, 'POST', ?, ?, ?, 'in-flight', 'a-stopped-run', ?, ?)`,
      )
      .run(`driver:${id}`, `${BASE}/complete`, k, fingerprintOf(body), clock.now(), clock.now() + 48 * HOUR);
    const busy = await client.post(`${BASE}/complete`, body, { 'Idempotency-Key': k });
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('idempotency-key-in-flight');
    clock.advance(61_000);
    const unknown = await client.post(`${BASE}/complete`, body, { 'Idempotency-Key': k });
    expect(unknown.status).toBe(409);
    expect(unknown.body.code).toBe('idempotency-outcome-unknown');
    const again = await client.post(`${BASE}/complete`, body, { 'Idempotency-Key': k });
    expectSameAnswer(again, unknown);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(statusOf(taskId)).toBe('IN_PROGRESS');
    expect(eventsOf(taskId)).toEqual([]);
  });
});

describe('where keys live', () => {
  it('in a table local to the node that answered: not synced, no change_log rows', async () => {
    const { client } = await driverOnShift();
    const before = count('SELECT count(*) AS n FROM change_log');
    const headers = key();
    const body = { deviceId: 'phone-3', platform: 'android', token: 'fcm-token-3' };
    expect((await client.post(`${BASE}/notification-token`, body, headers)).status).toBe(200);
    const logged = count('SELECT count(*) AS n FROM change_log');
    expect(count('SELECT count(*) AS n FROM idempotency_key WHERE key = ?', headers['Idempotency-Key'])).toBe(
      1,
    );
    // The replay writes nothing that syncs, and the key's row was never logged.
    expect((await client.post(`${BASE}/notification-token`, body, headers)).status).toBe(200);
    expect(count('SELECT count(*) AS n FROM change_log')).toBe(logged);
    expect(logged).toBeGreaterThan(before); // the token itself syncs
    expect(count("SELECT count(*) AS n FROM change_log WHERE entity LIKE 'idempotency%'")).toBe(0);
    expect(SYNCED_SQL_TABLES.has('idempotency_key')).toBe(false);
  });
});

describe('OpenAPI', () => {
  const ACTION_ROUTES = [
    'start',
    'complete',
    'cancel',
    'session/start',
    'session/end',
    'session/locations',
    'notification-token',
  ];

  it('documents the Idempotency-Key header, its 409/422 problems and the replay header on each action route', async () => {
    const doc = (await w.admin.get('/v3/api-docs')).body;
    for (const route of ACTION_ROUTES) {
      const op = doc.paths[`${BASE}/${route}`].post;
      const header = op.parameters.find((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
      expect(header, route).toBeDefined();
      expect(header.required).toBe(false);
      expect(header.schema).toMatchObject({ type: 'string', minLength: 1, maxLength: 255 });
      expect(header.description).toContain('idempotency-key-reused');
      expect(op.responses['422'].description).toContain('idempotency-key-reused');
      expect(op.responses['409'].description).toContain('idempotency-key-in-flight');
      expect(op.responses['409'].description).toContain('idempotency-outcome-unknown');
      expect(op.responses['409'].headers['Retry-After']).toBeDefined();
      const ok = op.responses['200'] ?? op.responses['201'];
      expect(ok.headers['Idempotent-Replayed']).toBeDefined();
    }
    for (const [method, route] of [
      ['post', 'last-check'],
      ['get', 'tasks'],
    ] as const) {
      const params = doc.paths[`${BASE}/${route}`][method].parameters ?? [];
      expect(
        params.some((p: any) => p.name === 'Idempotency-Key'),
        route,
      ).toBe(false);
    }
  });
});

// Last: it moves the clock two days on, past every token of the other tests.
describe('keeping keys', () => {
  it('keeps a key idempotency.retentionHours (48 h) after its answer, then prunes it and the key is new', async () => {
    const yardId = await w.yard();
    const pin = '4321';
    const driverCode = `KEEP${Date.now() % 100000}`;
    const d = await seed(w.admin).yardDriver({ driverCode, pin });
    expect((await d.client.post(`${BASE}/session/start`, { yardId })).status).toBe(201);
    const session = rows(
      t.db,
      'SELECT id FROM driver_session WHERE driver_id = ? AND ended_at IS NULL',
      d.id,
    )[0].id;
    const headers = key();
    const send = async () => {
      // Log in anew each time: tokens do not outlive the hours this test skips.
      const login = await d.client.as(undefined).post('/api/auth/driver-login', { driverCode, pin });
      expect(login.status, login.text).toBe(200);
      const phone = d.client.as(login.body.token);
      await phone.post(`${BASE}/last-check`, {}); // the session stays open across the skipped hours
      return phone.post(
        `${BASE}/session/locations`,
        { points: [{ at: iso(clock.now()), lat: 1, lon: 2 }] },
        headers,
      );
    };
    const first = await send();
    expect(first.status, first.text).toBe(200);
    const keyRows = () =>
      count('SELECT count(*) AS n FROM idempotency_key WHERE key = ?', headers['Idempotency-Key']);
    clock.advance(47 * HOUR);
    expect(await t.idempotency.prune()).toBe(0);
    expect(keyRows()).toBe(1);
    // Within the 48 h, even with another body (a later `at`), the key is taken: 422.
    expect((await send()).status).toBe(422);
    clock.advance(1 * HOUR + 1);
    expect(await t.idempotency.prune()).toBeGreaterThanOrEqual(1);
    expect(keyRows()).toBe(0);
    const fresh = await send();
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(pointsOf(session)).toBe(2);
  });
});

/** The fingerprint the server keeps for a request with no path parameters or query (idempotency.ts). */
function fingerprintOf(body: unknown): string {
  // Computed by the server's own function: the test is about what happens to a row left in flight.
  return requestFingerprint({ params: {}, query: {}, body } as never);
}
