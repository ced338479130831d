import { expect } from 'vitest';
import { seed } from '../../helpers/builders.js';
import type { Client } from '../../helpers/http.js';
import { waitFor } from '../../helpers/wait-for.js';
import type { MasterData } from './link-fixture.js';

/**
 * Appointments made and used through the product's own routes, for the sync suites: scheduling and
 * booking at the cloud (docs/api.md "Appointments"), a check-in naming the appointment at the
 * site's gate. Bookings are made with an office override (a reason): these suites test the sync
 * rules (docs/sync.md), not the booking rules, and book at any time they need.
 */

const OVERRIDE = { reason: 'sync test booking' };

/** Turns on scheduling for the yard (cloud) and adds one 60-minute load type; returns its id. */
export async function schedulingAt(cloud: Client, m: MasterData): Promise<string> {
  const config = await cloud.put(`/api/appointment/config/${m.yardId}`, {
    enabled: true,
    openHours: Object.fromEntries(
      ['1', '2', '3', '4', '5'].map((d) => [d, [{ from: '06:00', to: '18:00' }]]),
    ),
  });
  expect(config.status, config.text).toBe(200);
  const loadType = await cloud.post('/api/appointment/load-type', {
    yardId: m.yardId,
    name: 'Live unload',
    durationMinutes: 60,
  });
  expect(loadType.status, loadType.text).toBe(201);
  return loadType.body.id as string;
}

/** A booking at the cloud at the yard's door, an hour from `startAt` (epoch ms); returns its id. */
export async function bookAt(
  cloud: Client,
  m: MasterData,
  loadTypeId: string,
  startAt: number,
): Promise<string> {
  const booked = await cloud.post('/api/appointment', {
    yardId: m.yardId,
    loadTypeId,
    carrierId: m.carrierId,
    doorId: m.doorId,
    startAt: new Date(startAt).toISOString(),
    refs: ['PO-1'],
    override: OVERRIDE,
  });
  expect(booked.status, booked.text).toBe(201);
  return booked.body.id as string;
}

/** A reschedule at the cloud (If-Match on the version it reads first). */
export async function rescheduleAt(cloud: Client, id: string, startAt: number): Promise<void> {
  const current = await cloud.get(`/api/appointment/${id}`);
  expect(current.status, current.text).toBe(200);
  const moved = await cloud.patch(
    `/api/appointment/${id}`,
    { startAt: new Date(startAt).toISOString(), override: OVERRIDE },
    { 'if-match': `"v${current.body.version}"` },
  );
  expect(moved.status, moved.text).toBe(200);
}

/** The appointment's truck checked in at a gate of the site (the edge's own route); returns the movement id. */
export async function arriveAt(edge: Client, m: MasterData, appointmentId: string): Promise<string> {
  await waitFor(async () => (await edge.get(`/api/appointment/${appointmentId}`)).status === 200, {
    what: 'the booking at the edge',
  });
  const gate = await seed(edge).gate(m.yardId, {
    name: `Gate ${appointmentId.slice(-6)}`,
    direction: 'both',
  });
  const movement = await edge.post('/api/movement', {
    yardId: m.yardId,
    gateId: gate.id,
    direction: 'in',
    appointmentId,
    trailer: { number: `TR-${appointmentId.slice(-6)}`, carrierId: m.carrierId },
    truck: { plate: `P-${appointmentId.slice(-6)}`, plateRegion: 'TX' },
    driverId: m.driverId,
    locationId: m.spotId,
  });
  expect(movement.status, movement.text).toBe(201);
  return movement.body.id as string;
}
