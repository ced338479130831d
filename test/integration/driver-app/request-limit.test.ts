import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { newId } from '../../../shared/ids.js';
import { seed } from '../../helpers/builders.js';
import { Client, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The driver routes' limits (docs/api.md "Limits on the driver routes"): requests per driver and
 * window, and Idempotency-Keys kept per caller. The driver routes run at the edge (SQLite) and at
 * the cloud (each database).
 */
const BASE = '/api/yard-task/driver';
const HOUR = 60 * 60 * 1000;
const UNKNOWN_TASK = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f';
const keyed = () => ({ 'Idempotency-Key': randomUUID() });

/**
 * The driver app's own queue and answer rule (shared/ui/driver/offline). They are browser code,
 * type-checked with the web apps (shared/ui/tsconfig.json), so they are loaded here by path with
 * the few types this test uses.
 */
interface DriverAction {
  id: string;
  kind: 'start' | 'complete' | 'cancel';
  taskId: string;
  at: string;
  by?: string;
}
interface OutboxState {
  pending: DriverAction[];
  conflicts: unknown[];
}
type Outcome = { type: string };
interface DriverApp {
  OutboxQueue: new (deps: {
    store: {
      load(): Promise<OutboxState>;
      change(change: (s: OutboxState) => OutboxState): Promise<OutboxState>;
    };
    send(action: DriverAction): Promise<Outcome>;
    signedInAs(): string | null;
    publish(state: OutboxState): void;
  }) => { replay(): Promise<void> };
  classify(
    answer: { status: number; body?: unknown; retryAfter?: string | null; replayed?: boolean },
    taskId: string,
  ): Outcome;
}
async function driverApp(): Promise<DriverApp> {
  const load = (file: string) =>
    import(new URL(`../../../shared/ui/driver/offline/${file}`, import.meta.url).href);
  return { ...(await load('outbox-queue.ts')), ...(await load('retry.ts')) } as DriverApp;
}

describe.each(TEST_DIALECTS)('driver route limits (%s)', (dialect) => {
  let t: TestApp<AppDatabase> | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  const start = (env: Record<string, string>, clock?: ManualClock) =>
    startTestApp({
      dialect,
      env: dialect === 'postgres' ? { YARD_ROLE: 'cloud', ...env } : env,
      ...(clock ? { clock } : {}),
    });
  const keysOf = async (app: TestApp<AppDatabase>, driverId: string) =>
    Number(
      (
        await query(
          app.db,
          'SELECT count(*) AS n FROM idempotency_key WHERE principal = ?',
          `driver:${driverId}`,
        )
      )[0].n,
    );
  /** A driver's action with a fresh key: one stored key each (a batch answer for an unknown task). */
  const act = (client: Client) => client.post(`${BASE}/complete`, { taskIds: [UNKNOWN_TASK] }, keyed());

  it('many requests from one driver: 429 rate-limited with Retry-After past the budget, nothing stored for them; another driver is unaffected', async () => {
    t = await start({ YARD_DRIVER_REQUESTS: '20', YARD_DRIVER_REQUEST_WINDOW_SEC: '60' });
    const admin = new Client(t.url, t.adminToken);
    const flooder = await seed(admin).yardDriver();
    const other = await seed(admin).yardDriver();
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await act(flooder.client)).status);
    expect(statuses).toEqual([...Array(20).fill(200), ...Array(5).fill(429)]);
    const refused = await act(flooder.client);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body.code).toBe('rate-limited');
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    // Every driver route spends the same budget, reads too.
    expect((await flooder.client.get(`${BASE}/tasks`)).status).toBe(429);
    // The refused requests took no key.
    expect(await keysOf(t, flooder.id)).toBe(20);
    // Another driver has a budget of its own.
    expect((await act(other.client)).status).toBe(200);
    expect((await other.client.get(`${BASE}/tasks`)).status).toBe(200);
  });

  it('one caller never holds more Idempotency-Keys than the bound, even when its requests race; old answers stay replayable', async () => {
    const clock = new ManualClock(Date.parse('2026-04-01T06:00:00Z'));
    t = await start({ YARD_DRIVER_REQUESTS: '1000' }, clock);
    const app = t;
    const admin = new Client(app.url, app.adminToken);
    const driver = await seed(admin).yardDriver({ driverCode: 'BOUND-1', pin: '2468' });
    const other = await seed(admin).yardDriver();
    const first = keyed();
    const answered = await driver.client.post(`${BASE}/complete`, { taskIds: [UNKNOWN_TASK] }, first);
    expect(answered.status).toBe(200);
    // 998 more keys of this driver, as if sent over the last hours (the default bound is 1000).
    const now = clock.now();
    for (let i = 0; i < 998; i += 200) {
      const values = Array.from({ length: Math.min(200, 998 - i) }, (_, j) => [
        `driver:${driver.id}`,
        'POST',
        `${BASE}/complete`,
        `seeded-${i + j}`,
        'f',
        'done',
        'o',
        now,
        200,
        '{}',
        now + 48 * HOUR + i + j,
      ]);
      const sql = `INSERT INTO idempotency_key (principal, method, route, key, fingerprint, state, owner, started_at, status, body, expires_at) VALUES ${values
        .map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .join(', ')}`;
      await query(app.db, sql, ...values.flat());
    }
    expect(await keysOf(app, driver.id)).toBe(999);
    // Ten new keys at once: one finds room, nine are refused.
    const race = await Promise.all(Array.from({ length: 10 }, () => act(driver.client)));
    expect(race.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = race.filter((r) => r.status === 429);
    expect(refused).toHaveLength(9);
    expect(refused[0]!.body.code).toBe('too-many-idempotency-keys');
    expect(refused[0]!.headers.get('content-type')).toContain('application/problem+json');
    // Until the oldest key (the first one's, 48 h from now) expires.
    expect(Number(refused[0]!.headers.get('retry-after'))).toBe(48 * 60 * 60);
    expect(await keysOf(app, driver.id)).toBe(1000);
    // Nothing acknowledged is dropped: the first key's answer is still replayed.
    const replay = await driver.client.post(`${BASE}/complete`, { taskIds: [UNKNOWN_TASK] }, first);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(answered.text);
    // A request without a key still runs; another driver still gets keys.
    expect((await driver.client.post(`${BASE}/complete`, { taskIds: [UNKNOWN_TASK] })).status).toBe(200);
    expect((await act(other.client)).status).toBe(200);
    // Once the oldest keys expire there is room again, and the rows stay within the bound.
    clock.advance(48 * HOUR + 1);
    const login = await new Client(app.url).post('/api/auth/driver-login', {
      driverCode: 'BOUND-1',
      pin: '2468',
    });
    const again = new Client(app.url, login.body.token);
    expect((await act(again)).status).toBe(200);
    expect(await keysOf(app, driver.id)).toBeLessThanOrEqual(1000);
  });
});

describe('the bound is the setting idempotency.maxKeysPerCaller', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('at the edge, 100 keys: the 101st new key is refused and no row is written for it', async () => {
    t = await startTestApp({ env: { YARD_DRIVER_REQUESTS: '1000' } });
    const admin = new Client(t.url, t.adminToken);
    expect(
      (await admin.put('/api/settings', { settings: { 'idempotency.maxKeysPerCaller': 100 } })).status,
    ).toBe(200);
    const driver = await seed(admin).yardDriver();
    for (let i = 0; i < 100; i++) expect((await act(driver.client)).status).toBe(200);
    expect((await act(driver.client)).body.code).toBe('too-many-idempotency-keys');
    expect(
      Number(
        (
          await query(
            t.db,
            'SELECT count(*) AS n FROM idempotency_key WHERE principal = ?',
            `driver:${driver.id}`,
          )
        )[0].n,
      ),
    ).toBe(100);
  });

  const act = (client: Client) => client.post(`${BASE}/complete`, { taskIds: [UNKNOWN_TASK] }, keyed());
});

describe('an offline backlog replayed past the request limit', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('the driver app waits out each 429 (Retry-After) and every queued action is applied once, none refused', async () => {
    const { OutboxQueue, classify } = await driverApp();
    t = await startTestApp({ env: { YARD_DRIVER_REQUESTS: '5', YARD_DRIVER_REQUEST_WINDOW_SEC: '1' } });
    const app = t;
    const admin = new Client(app.url, app.adminToken);
    const yardId = (await seed(admin).yard({ timeZone: 'Europe/Lisbon' })).id;
    const driver = await seed(admin).yardDriver();
    const taskIds: string[] = [];
    for (let i = 0; i < 12; i++) taskIds.push(await inProgressTask(app, yardId, driver.id));
    // The queue as the driver app keeps it after an outage: twelve Completes, oldest first.
    let state: OutboxState = {
      pending: taskIds.map((taskId, i) => ({
        id: randomUUID(),
        kind: 'complete',
        taskId,
        at: new Date(Date.now() - (12 - i) * 60_000).toISOString(),
        by: driver.id,
      })),
      conflicts: [],
    };
    const statuses: number[] = [];
    const send = async (action: DriverAction) => {
      const res = await driver.client.post(
        `${BASE}/${action.kind}`,
        { taskIds: [action.taskId] },
        {
          'Idempotency-Key': action.id,
        },
      );
      statuses.push(res.status);
      return classify(
        {
          status: res.status,
          body: res.body,
          retryAfter: res.headers.get('retry-after'),
          replayed: res.headers.get('idempotent-replayed') === 'true',
        },
        action.taskId,
      );
    };
    const queue = new OutboxQueue({
      store: {
        load: async () => state,
        change: async (change) => {
          state = change(state);
          return state;
        },
      },
      send,
      signedInAs: () => driver.id,
      publish: () => {},
    });
    await queue.replay();
    for (let i = 0; i < 100 && state.pending.length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(state.pending).toEqual([]);
    expect(state.conflicts).toEqual([]);
    expect(statuses).toContain(429);
    const done = await query(
      app.db,
      `SELECT count(*) AS n FROM yard_task WHERE status = 'COMPLETED' AND id IN (${taskIds.map(() => '?').join(', ')})`,
      ...taskIds,
    );
    expect(Number(done[0].n)).toBe(12);
  }, 30_000);
});

async function inProgressTask(t: TestApp, yardId: string, driverId: string): Promise<string> {
  const now = t.core.clock.now();
  const id = newId();
  await t.core.changes.insert(t.core.kysely, 'yardTask', {
    id,
    yardId,
    type: 'other',
    trailerId: null,
    fromLocationId: null,
    toLocationId: null,
    priority: 1,
    status: 'IN_PROGRESS',
    driverId,
    notes: null,
    dueAt: null,
    createdBy: null,
    createdAt: now,
    updatedAt: now,
    assignedAt: now,
    startedAt: now,
    completedAt: null,
    cancelledAt: null,
    cancelReason: null,
    billedCarrierId: null,
  });
  return id;
}
