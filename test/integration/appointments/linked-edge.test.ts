import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { Client, query } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { serveLinkedEdge } from '../billing/fixture.js';
import { bookableYard } from './fixture.js';

/**
 * Booking happens where availability is known (docs/domain.md "Booking rules"): a standalone edge
 * books; an edge linked to a cloud answers booking writes 409 `cloud-owned`, changes nothing, and
 * still shows its copy of the appointments.
 */
describe('appointments at a linked edge', () => {
  let standalone: TestApp;
  let edge: Awaited<ReturnType<typeof serveLinkedEdge>>;
  let y: Awaited<ReturnType<typeof bookableYard>>;
  let bookedId: string;

  beforeAll(async () => {
    // Real time here: the linked edge is built on the standalone app's database with its own clock.
    standalone = await startTestApp({ clock: new ManualClock(Date.now()) });
    const admin = new Client(standalone.url, standalone.adminToken);
    y = await bookableYard(admin);
    const override = { reason: 'test booking at any hour' };
    const booked = await admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      startAt: new Date(Date.now() + 86_400_000).toISOString(),
      override,
    });
    expect(booked.status, booked.text).toBe(201);
    bookedId = booked.body.id;
    edge = await serveLinkedEdge(standalone);
  });
  afterAll(async () => {
    await edge?.close();
    await standalone?.close();
  });

  it('answers booking, reschedule, cancel, config and load-type writes with 409 cloud-owned and changes nothing', async () => {
    const before = await query(standalone.db, 'SELECT id, version FROM appointment ORDER BY id');
    const writes = [
      edge.admin.post('/api/appointment', {
        yardId: y.yardId,
        loadTypeId: y.loadTypeId,
        carrierId: y.carrierId,
        startAt: new Date(Date.now() + 2 * 86_400_000).toISOString(),
        override: { reason: 'offline booking attempt' },
      }),
      // Refused before the booking rules are asked: an off-grid start is cloud-owned here, not 400.
      edge.admin.post('/api/appointment', {
        yardId: y.yardId,
        loadTypeId: y.loadTypeId,
        carrierId: y.carrierId,
        startAt: new Date(Date.now() + 2 * 86_400_000 + 7 * 60_000).toISOString(),
      }),
      edge.admin.patch(`/api/appointment/${bookedId}`, { notes: 'changed at the edge' }),
      edge.admin.post(`/api/appointment/${bookedId}/cancel`, { reason: 'cancelled at the edge' }),
      edge.admin.put(`/api/appointment/config/${y.yardId}`, { enabled: false, openHours: {} }),
      edge.admin.post('/api/appointment/load-type', {
        yardId: y.yardId,
        name: 'Edge type',
        durationMinutes: 30,
      }),
      edge.admin.patch(`/api/appointment/load-type/${y.loadTypeId}`, { durationMinutes: 45 }),
      edge.admin.delete(`/api/appointment/load-type/${y.loadTypeId}`),
    ];
    for (const res of await Promise.all(writes)) {
      expect(res.status, res.text).toBe(409);
      expect(res.body.code).toBe('cloud-owned');
    }
    expect((await writes[0])!.body.detail).toMatch(/^Appointments are booked in the cloud/);
    expect(await query(standalone.db, 'SELECT id, version FROM appointment ORDER BY id')).toEqual(before);
    // Reads are served from the edge's copy (the gate matches arrivals against it, also offline).
    const one = await edge.admin.get(`/api/appointment/${bookedId}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: bookedId, status: 'scheduled', overdue: false });
    expect((await edge.admin.get(`/api/appointment?yardId=${y.yardId}`)).body.items).toHaveLength(1);
    expect((await edge.admin.get(`/api/appointment/config/${y.yardId}`)).body.enabled).toBe(true);
  });
});
