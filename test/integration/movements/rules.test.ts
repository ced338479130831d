import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { newId } from '../../../shared/ids.js';
import { seed } from '../../helpers/builders.js';
import { Client, clientWithRole, rows } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Visits are never inverted, and a gate clerk's movements stay inside its yard scope. At an edge on
 * SQLite only: recording movements is the edge's (the cloud answers 409 edge-owned; docs/architecture.md "Two databases, and several cloud nodes").
 */
let t: TestApp;
let admin: Client;
let clerkA: Client;
const clock = new ManualClock(Date.parse('2026-01-15T12:00:00Z'));
let yardA: string;
let yardB: string;

beforeAll(async () => {
  t = await startTestApp({ clock });
  admin = new Client(t.url, t.adminToken);
  const yard = async (code: string) => (await seed(admin).yard({ code })).id as string;
  yardA = await yard('AAA');
  yardB = await yard('BBB');
  clerkA = await clientWithRole(admin, 'gate', { yardIds: [yardA] });
});
afterAll(() => t.close());

const count = (table: string) => rows(t.db, `SELECT count(*) AS n FROM ${table}`)[0].n as number;
const visitsOf = (trailerId: string) =>
  rows(t.db, 'SELECT in_at, out_at FROM visit WHERE trailer_id = ? ORDER BY in_at', trailerId);

async function move(client: Client, body: Record<string, unknown>) {
  const res = await client.post('/api/movement', body);
  if (res.status !== 201) throw new Error(`movement: ${res.status} ${res.text}`);
  return res.body;
}

function expectInverted(res: { status: number; body: any }) {
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('validation-failed');
  expect(res.body.errors).toEqual([
    expect.objectContaining({ path: 'body.at', code: 'visit-inverted', message: expect.any(String) }),
  ]);
}

describe('visits are never inverted', () => {
  it('a check-out dated before its own check-in is 400 on at and stores nothing', async () => {
    const checkIn = await move(admin, {
      yardId: yardA,
      direction: 'in',
      at: '2026-01-15T10:00:00Z',
      trailer: { number: 'INV-1' },
    });
    const before = { movements: count('movement'), visits: visitsOf(checkIn.trailerId) };
    const res = await admin.post('/api/movement', {
      yardId: yardA,
      direction: 'out',
      at: '2020-01-01T00:00:00Z',
      trailer: { id: checkIn.trailerId },
    });
    expectInverted(res);
    expect(res.body.errors[0].message).toContain('2026-01-15T10:00:00');
    expect(count('movement')).toBe(before.movements);
    expect(visitsOf(checkIn.trailerId)).toEqual(before.visits);
    expect((await admin.get(`/api/trailer/${checkIn.trailerId}`)).body.yardId).toBe(yardA);
    // Later is fine, and the visit dwells forward.
    await move(admin, {
      yardId: yardA,
      direction: 'out',
      at: '2026-01-15T11:00:00Z',
      trailer: { id: checkIn.trailerId },
    });
    const visits = (await admin.get(`/api/visit?trailerId=${checkIn.trailerId}`)).body.items;
    expect(visits).toEqual([expect.objectContaining({ open: false, dwellMs: 3_600_000 })]);
  });

  it("a check-in dated before the unit's last check-out is 400; at the same instant it is fine", async () => {
    const first = await move(admin, {
      yardId: yardA,
      direction: 'in',
      at: '2026-01-15T08:00:00Z',
      trailer: { number: 'INV-2' },
    });
    await move(admin, {
      yardId: yardA,
      direction: 'out',
      at: '2026-01-15T09:00:00Z',
      trailer: { id: first.trailerId },
    });
    const movements = count('movement');
    const early = await admin.post('/api/movement', {
      yardId: yardB,
      direction: 'in',
      at: '2026-01-15T08:30:00Z',
      trailer: { id: first.trailerId },
    });
    expectInverted(early);
    expect(count('movement')).toBe(movements);
    expect(visitsOf(first.trailerId)).toHaveLength(1);
    await move(admin, {
      yardId: yardB,
      direction: 'in',
      at: '2026-01-15T09:00:00Z',
      trailer: { id: first.trailerId },
    });
    expect(visitsOf(first.trailerId)).toHaveLength(2);
  });

  it("a forced check-in dated before the open visit's check-in is 400 (it would close that visit inverted)", async () => {
    const inA = await move(admin, {
      yardId: yardA,
      direction: 'in',
      at: '2026-01-15T10:00:00Z',
      trailer: { number: 'INV-3' },
    });
    const res = await admin.post('/api/movement', {
      yardId: yardB,
      direction: 'in',
      at: '2026-01-15T09:00:00Z',
      trailer: { id: inA.trailerId },
      force: true,
    });
    expectInverted(res);
    expect(visitsOf(inA.trailerId)).toEqual([{ in_at: Date.parse('2026-01-15T10:00:00Z'), out_at: null }]);
  });

  it('a truck on its own: a check-out before its check-in is 400', async () => {
    const inn = await move(admin, {
      yardId: yardA,
      direction: 'in',
      at: '2026-01-15T10:00:00Z',
      truck: { plate: 'INV-T1' },
    });
    const res = await admin.post('/api/movement', {
      yardId: yardA,
      direction: 'out',
      at: '2026-01-14T10:00:00Z',
      truck: { id: inn.truckId },
    });
    expectInverted(res);
    expect((await admin.get(`/api/truck/${inn.truckId}`)).body.yardId).toBe(yardA);
  });
});

describe("a scoped gate clerk and other yards' units", () => {
  it('cannot check out, even with force, a trailer that is in a yard outside its scope; the 409 names no yard', async () => {
    const inB = await move(admin, { yardId: yardB, direction: 'in', trailer: { number: 'B-OWNED-1' } });
    const movements = count('movement');
    for (const force of [false, true]) {
      const res = await clerkA.post('/api/movement', {
        yardId: yardA,
        direction: 'out',
        trailer: { id: inB.trailerId },
        force,
      });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('not-in-yard');
      expect(res.body).not.toHaveProperty('yardId');
      expect(res.text).not.toContain(yardB);
    }
    expect(count('movement')).toBe(movements);
    expect((await admin.get(`/api/trailer/${inB.trailerId}`)).body.yardId).toBe(yardB);
    expect(visitsOf(inB.trailerId)).toEqual([expect.objectContaining({ out_at: null })]);
    // A unit in no yard at all can still be force-checked out (recorded with a warning).
    const loose = await clerkA.post('/api/movement', {
      yardId: yardA,
      direction: 'out',
      trailer: { number: 'NOWHERE-1' },
      force: true,
    });
    expect(loose.status).toBe(201);
    expect(loose.body.warnings).toEqual([expect.stringMatching(/^not-in-yard: /)]);
  });

  it('already-in-yard names the other yard only to a caller who can see it', async () => {
    const inB = await move(admin, { yardId: yardB, direction: 'in', trailer: { number: 'B-OWNED-2' } });
    const body = { yardId: yardA, direction: 'in', trailer: { id: inB.trailerId } };
    const scoped = await clerkA.post('/api/movement', body);
    expect(scoped.status).toBe(409);
    expect(scoped.body.code).toBe('already-in-yard');
    expect(scoped.body).not.toHaveProperty('yardId');
    expect(scoped.text).not.toContain(yardB);
    const global = await admin.post('/api/movement', body);
    expect(global.status).toBe(409);
    expect(global.body.yardId).toBe(yardB);
  });

  it('correctsId of a movement the caller cannot see answers exactly like one that does not exist', async () => {
    const inB = await move(admin, { yardId: yardB, direction: 'in', truck: { plate: 'B-CORR-1' } });
    const movements = count('movement');
    const ask = (correctsId: string) =>
      clerkA.post('/api/movement', {
        yardId: yardA,
        direction: 'in',
        truck: { plate: 'A-CORR-1' },
        correctsId,
      });
    const hidden = await ask(inB.id);
    const missingId = newId();
    const missing = await ask(missingId);
    expect(hidden.status).toBe(404);
    const shape = (res: { body: any }, id: string) => {
      const { requestId: _r, ...rest } = res.body;
      return JSON.parse(JSON.stringify(rest).replaceAll(id, '<id>'));
    };
    expect(shape(hidden, inB.id)).toEqual(shape(missing, missingId));
    expect(count('movement')).toBe(movements);
    // Someone who sees yard B may correct its movement from yard A.
    const corrected = await admin.post('/api/movement', {
      yardId: yardA,
      direction: 'in',
      truck: { plate: 'A-CORR-2' },
      correctsId: inB.id,
    });
    expect(corrected.status).toBe(201);
    expect(corrected.body.correctsId).toBe(inB.id);
  });
});
