import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { Client, clientWithRole } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { bookableYard, NOW } from '../appointments/fixture.js';

/**
 * Search everywhere finds appointments (docs/api.md "Search"), at the cloud on each database: by
 * code (as read out: any case, a dash) and by ref (PO / BOL number), exactly; in the caller's yards
 * only; with where and when each is booked, so the dashboard opens it on the dock schedule.
 */
describe.each(TEST_DIALECTS)('search everywhere: appointments (%s)', (dialect) => {
  const clock = new ManualClock(Date.parse(NOW));
  let t: TestApp<AppDatabase>;
  let admin: Client;
  let east: Awaited<ReturnType<typeof bookableYard>>;
  let west: Awaited<ReturnType<typeof bookableYard>>;
  const booked: Record<string, Record<string, any>> = {};

  const book = async (y: typeof east, fields: Record<string, unknown>) => {
    const res = await admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      ...fields,
    });
    expect(res.status, res.text).toBe(201);
    return res.body as Record<string, any>;
  };
  const search = async (q: string, as: Client = admin) => {
    const res = await as.get(`/api/search?q=${encodeURIComponent(q)}`);
    expect(res.status, res.text).toBe(200);
    return res.body.items as Array<Record<string, any>>;
  };
  const appointments = async (q: string, as?: Client) =>
    (await search(q, as)).filter((h) => h.kind === 'appointment');

  beforeAll(async () => {
    t = await startTestApp({ dialect, clock, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    east = await bookableYard(admin);
    west = await bookableYard(admin);
    booked.first = await book(east, {
      startAt: '2026-03-03T08:00:00-06:00',
      refs: ['PO-4711', 'BOL 88120'],
      trailerNumber: 'TRLU 700101',
    });
    booked.later = await book(east, { startAt: '2026-03-05T09:00:00-06:00', refs: ['po-4711'] });
    booked.west = await book(west, { startAt: '2026-03-04T10:00:00-06:00', refs: ['PO-4711'] });
  });
  afterAll(() => t.close());

  it('finds an appointment by its code as read out (any case, with a dash), with where and when it is booked', async () => {
    const a = booked.first!;
    const carrier = (await admin.get(`/api/carrier/${east.carrierId}`)).body;
    const yard = (await admin.get(`/api/yard/${east.yardId}`)).body;
    const spoken = `${a.code.slice(0, 4).toLowerCase()}-${a.code.slice(4)}`;
    for (const q of [a.code, spoken]) {
      expect(await appointments(q)).toEqual([
        {
          kind: 'appointment',
          id: a.id,
          label: a.code,
          secondary: carrier.scac ? `${carrier.name} (${carrier.scac})` : carrier.name,
          match: 'exact',
          where: null,
          appointment: {
            yard: { id: east.yardId, name: yard.name },
            startAt: '2026-03-03T14:00:00.000Z',
            door: { id: a.doorId, name: a.doorName },
            status: 'scheduled',
            refs: ['PO-4711', 'BOL 88120'],
          },
        },
      ]);
    }
  });

  it('finds every appointment with a ref, any case, the latest first; a dispatcher of one yard only its own', async () => {
    expect((await appointments('PO-4711')).map((h) => h.id)).toEqual([
      booked.later!.id,
      booked.west!.id,
      booked.first!.id,
    ]);
    expect((await appointments('bol 88120')).map((h) => h.id)).toEqual([booked.first!.id]);
    const eastOnly = await clientWithRole(admin, 'dispatcher', { yardIds: [east.yardId] });
    expect((await appointments('po-4711', eastOnly)).map((h) => h.id)).toEqual([
      booked.later!.id,
      booked.first!.id,
    ]);
  });

  it('matches codes and refs whole: part of one, or a trailer number, finds no appointment', async () => {
    expect(await appointments('PO-47')).toEqual([]);
    expect(await appointments(booked.first!.code.slice(0, 6))).toEqual([]);
    expect(await appointments('TRLU 700101')).toEqual([]);
    // Longer than any ref: the search still answers, without appointments.
    expect(await appointments('X'.repeat(60))).toEqual([]);
  });
});
