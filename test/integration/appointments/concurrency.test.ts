import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { Client, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { bookableYard, NOW } from './fixture.js';

/**
 * Overbooking is impossible under concurrent requests (docs/domain.md "Booking rules"): on
 * PostgreSQL through two cloud nodes sharing the database, on SQLite through one app. The check
 * and the insert run under one lock per yard and yard-local day, both days for a booking across
 * midnight.
 */
describe.each(TEST_DIALECTS)('concurrent bookings (%s)', (dialect) => {
  const nodes: Array<TestApp<AppDatabase>> = [];
  const clients: Client[] = [];
  let admin: Client;

  beforeAll(async () => {
    const first = await startTestApp({
      dialect,
      clock: new ManualClock(Date.parse(NOW)),
      env: { YARD_ROLE: 'cloud' },
    });
    nodes.push(first);
    if (dialect === 'postgres') {
      // A second cloud node on the same database, with its own pool, HTTP server and clock.
      nodes.push(
        await startTestApp({
          dialect,
          postgresUrl: first.postgresUrl!,
          clock: new ManualClock(Date.parse(NOW)),
          env: { YARD_ROLE: 'cloud' },
        }),
      );
    }
    for (const node of nodes) clients.push(new Client(node.url, node.adminToken));
    admin = clients[0]!;
  });
  afterAll(async () => {
    for (const node of [...nodes].reverse()) await node.close();
  });

  /** `n` bookings at once, spread over the nodes in turn; the answers in request order. */
  const burst = (n: number, body: (i: number) => Record<string, unknown>) =>
    Promise.all(
      Array.from({ length: n }, (_, i) => clients[i % clients.length]!.post('/api/appointment', body(i))),
    );

  it('100 requests for one slot of capacity 2: exactly 2 are booked, 98 get 409 slot-taken with the free times', {
    timeout: 120_000,
  }, async () => {
    const y = await bookableYard(admin, { doors: 1, capacity: 2 });
    const startAt = '2026-03-03T10:00:00-06:00';
    const answers = await burst(100, () => ({
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      startAt,
    }));
    const booked = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status === 409);
    expect(booked).toHaveLength(2);
    expect(refused).toHaveLength(98);
    for (const r of refused) {
      expect(r.body.code).toBe('slot-taken');
      expect(r.body.freeTimes).toContain('2026-03-03T11:00:00-06:00');
      expect(r.body.freeTimes).not.toContain(startAt);
    }
    // Every node turned requests away: the lock is in the database, not in one process.
    const refusedBy = clients.map((_, n) =>
      answers.filter((a, i) => i % clients.length === n && a.status === 409),
    );
    for (const some of refusedBy) expect(some.length).toBeGreaterThan(0);
    const rows = await query(
      nodes[0]!.db,
      'SELECT door_id, start_at FROM appointment WHERE yard_id = ?',
      y.yardId,
    );
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => Number(r.start_at) === Date.parse(startAt))).toBe(true);
  });

  it('a booking across midnight holds both days: bookings of either day cannot overlap it past capacity', {
    timeout: 120_000,
  }, async () => {
    const y = await bookableYard(admin, { doors: 1, capacity: 1 });
    // Open Tuesday evening into Wednesday morning: the spans touch at midnight and count as one.
    const hours = { '2': [{ from: '20:00', to: '24:00' }], '3': [{ from: '00:00', to: '04:00' }] };
    expect(
      (await admin.put(`/api/appointment/config/${y.yardId}`, { enabled: true, openHours: hours })).status,
    ).toBe(200);
    const long = await admin.post('/api/appointment/load-type', {
      yardId: y.yardId,
      name: 'Night drop',
      durationMinutes: 120,
    });
    // Half start Tuesday 23:00 (ending Wednesday 01:00, both days), half Wednesday 00:00 (its day only).
    const starts = ['2026-03-03T23:00:00-06:00', '2026-03-04T00:00:00-06:00'];
    const answers = await burst(40, (i) => ({
      yardId: y.yardId,
      loadTypeId: long.body.id,
      carrierId: y.carrierId,
      startAt: starts[i % 2],
    }));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409 && a.body.code === 'slot-taken')).toHaveLength(39);
    const rows = await query(
      nodes[0]!.db,
      'SELECT count(*) AS n FROM appointment WHERE yard_id = ?',
      y.yardId,
    );
    expect(Number(rows[0].n)).toBe(1);
  });
});
