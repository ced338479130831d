import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus, type PublishedEvent } from '../../../shared/bus.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { PostgresListener } from '../../../shared/db/postgres-listener.js';
import { PostgresLiveRelay } from '../../../shared/db/postgres-live-relay.js';
import { silentLogger } from '../../../shared/log.js';
import { seed } from '../../helpers/builders.js';
import { Client } from '../../helpers/http.js';
import { createTestDatabase, postgresAvailable } from '../../helpers/postgres.js';
import { EventStream } from '../../helpers/sse-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Two cloud nodes on one PostgreSQL: an SSE client of node A sees a change made through node B,
 * once (docs/architecture.md "Two databases, and several cloud nodes": live events follow every
 * node's commits).
 */
describe.skipIf(!postgresAvailable())('live events across cloud nodes (PostgreSQL LISTEN/NOTIFY)', () => {
  let a: TestApp<AppDatabase>;
  let b: TestApp<AppDatabase>;

  beforeAll(async () => {
    a = await startTestApp({ dialect: 'postgres', env: { YARD_ROLE: 'cloud' }, start: true });
    b = await startTestApp({
      dialect: 'postgres',
      postgresUrl: a.postgresUrl!,
      env: { YARD_ROLE: 'cloud' },
      start: true,
    });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a task created through node B reaches the SSE clients of node A and of B, once each', async () => {
    const atA = await EventStream.open(a.url, a.adminToken);
    const atB = await EventStream.open(b.url, b.adminToken);
    try {
      const viaB = new Client(b.url, b.adminToken);
      const yard = await seed(viaB).yard();
      const task = await viaB.post('/api/yard-task', {
        yardId: yard.id,
        type: 'inspect',
        notes: 'from node B',
      });
      expect(task.status, task.text).toBe(201);
      const created = (s: EventStream) =>
        s.events.filter((e) => e.event === 'task.created' && e.data?.data?.id === task.body.id);
      await atA.until(() => created(atA).length > 0);
      await atB.until(() => created(atB).length > 0);
      // The whole event: its yard too, which each node's stream filters by.
      expect(created(atA)[0]!.data).toMatchObject({
        type: 'task.created',
        yardId: yard.id,
        data: { id: task.body.id, notes: 'from node B', yardId: yard.id },
      });
      // No echo back and forth: a short wait, and each stream still has it once.
      await new Promise((r) => setTimeout(r, 300));
      expect(created(atA)).toHaveLength(1);
      expect(created(atB)).toHaveLength(1);
    } finally {
      atA.close();
      atB.close();
    }
  });
});

describe.skipIf(!postgresAvailable())('PostgresLiveRelay', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('splits an event past NOTIFY size into parts and joins them; in-process events stay home', async () => {
    const busA = new EventBus();
    const busB = new EventBus();
    const log = silentLogger();
    const listenerA = new PostgresListener({ pool, log });
    const listenerB = new PostgresListener({ pool, log });
    const relayA = new PostgresLiveRelay({ listener: listenerA, bus: busA, log, partChars: 40 });
    const relayB = new PostgresLiveRelay({ listener: listenerB, bus: busB, log, partChars: 40 });
    for (const c of [listenerA, listenerB, relayA, relayB]) await c.start();
    const seenB: PublishedEvent[] = [];
    const seenA: PublishedEvent[] = [];
    busB.subscribe((e) => seenB.push(e));
    busA.subscribe((e) => seenA.push(e));
    try {
      // Twelve thousand characters, with letters beyond ASCII: far past 8000 bytes in one NOTIFY.
      const names = Array.from({ length: 600 }, (_, i) => `ui.säte${i}.name`);
      busA.publish({ type: 'settings.changed', data: { names } });
      busA.publish({ type: 'sync.tasks-queued', data: { yardId: 'y1' } });
      busA.publish({ type: 'settings.changed', data: { names: ['after'] } });
      const deadline = Date.now() + 5000;
      while (seenB.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(seenB.map((e) => e.type)).toEqual(['settings.changed', 'settings.changed']);
      expect(seenB[0]!.data).toEqual({ names });
      expect(seenB[1]!.data).toEqual({ names: ['after'] });
      await new Promise((r) => setTimeout(r, 200));
      // A saw its own three and nothing came back.
      expect(seenA.map((e) => e.type)).toEqual(['settings.changed', 'sync.tasks-queued', 'settings.changed']);
      expect(seenB).toHaveLength(2);
    } finally {
      for (const c of [relayA, relayB, listenerA, listenerB]) await c.stop();
    }
  });
});
