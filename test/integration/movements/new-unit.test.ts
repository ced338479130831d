import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { seedRows } from '../../helpers/builders.js';
import { Client, rows } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * A check-in that would register a new trailer under a number the yard already knows, or a
 * container number with a wrong ISO 6346 check digit, asks the clerk to confirm first
 * (docs/domain.md "Gate movements and visits").
 */
let t: TestApp;
let admin: Client;
const clock = new ManualClock(Date.parse('2026-01-15T12:00:00Z'));
let yardId: string;
let spotId: string;
let acme: string;
let prairie: string;

const count = (table: string) => rows(t.db, `SELECT count(*) AS n FROM ${table}`)[0].n as number;
const snapshot = () => ({
  movement: count('movement'),
  visit: count('visit'),
  trailers: rows(t.db, 'SELECT id, number, carrier_id, yard_id, version FROM trailer ORDER BY id'),
  changeLog: count('change_log'),
});
const checkIn = (trailer: Record<string, unknown>) =>
  admin.post('/api/movement', { yardId, direction: 'in', trailer });

beforeAll(async () => {
  t = await startTestApp({ clock });
  admin = new Client(t.url, t.adminToken);
  const seed = seedRows(t);
  yardId = await seed.yard('DAL');
  spotId = await seed.location(yardId, 'S03');
  acme = await seed.carrier('Acme Freight', { scac: 'ACMF' });
  prairie = await seed.carrier('Prairie Haulage', { scac: 'PRHL' });
  const inYard = await admin.post('/api/movement', {
    yardId,
    direction: 'in',
    trailer: { number: 'LSLG5303', carrierId: prairie },
    locationId: spotId,
  });
  expect(inYard.status, inYard.text).toBe(201);
});
afterAll(() => t.close());

describe('a new trailer with a number the yard knows', () => {
  it('with another carrier picked: 409 same-number-unit naming the unit in the yard, and nothing is stored', async () => {
    const before = snapshot();
    const res = await checkIn({ number: 'lslg5303', carrierId: acme });
    expect(res.status, res.text).toBe(409);
    expect(res.body.code).toBe('same-number-unit');
    expect(res.body.matches).toEqual([
      {
        id: expect.any(String),
        number: 'LSLG5303',
        carrierId: prairie,
        carrierName: 'Prairie Haulage',
        inYard: true,
        yardId,
        locationName: 'S03',
      },
    ]);
    expect(res.body.detail).toContain('Prairie Haulage');
    expect(snapshot()).toEqual(before);
  });

  it('confirmed as a different unit: recorded, a second LSLG5303 of the other carrier, with a warning', async () => {
    const res = await checkIn({ number: 'LSLG5303', carrierId: acme, confirmNew: true });
    expect(res.status, res.text).toBe(201);
    expect(res.body.createdUnits.trailerId).toEqual(expect.any(String));
    expect(res.body.warnings).toEqual([expect.stringMatching(/^same-number-confirmed: /)]);
    const stored = rows(t.db, "SELECT carrier_id FROM trailer WHERE number = 'LSLG5303' ORDER BY carrier_id");
    expect(stored.map((r) => r.carrier_id).sort()).toEqual([acme, prairie].sort());
  });

  it('a known unit of another carrier that is out of the yard asks too', async () => {
    await seedRows(t).trailer({ carrierId: prairie, number: 'PRHU 100001' });
    const res = await checkIn({ number: 'PRHU 100001', carrierId: acme });
    expect(res.status).toBe(409);
    expect(res.body.matches).toMatchObject([{ carrierName: 'Prairie Haulage', inYard: false, yardId: null }]);
  });

  it('confirmNew describes a new trailer: refused with an id (400)', async () => {
    const res = await admin.post('/api/movement', {
      yardId,
      direction: 'in',
      trailer: { id: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f', confirmNew: true },
    });
    expect(res.status).toBe(400);
  });
});

describe('container numbers and their check digit', () => {
  it('a wrong check digit: 409 check-digit-mismatch naming the right digit; nothing stored', async () => {
    const before = snapshot();
    const res = await checkIn({ number: 'CSQU 305438 0', carrierId: acme, type: 'container' });
    expect(res.status, res.text).toBe(409);
    expect(res.body).toMatchObject({
      code: 'check-digit-mismatch',
      expectedCheckDigit: 3,
      correctedNumber: 'CSQU 305438 3',
    });
    expect(res.body.detail).toContain('should be 3');
    expect(snapshot()).toEqual(before);
  });

  it('confirmed as typed: recorded with a check-digit warning', async () => {
    const res = await checkIn({
      number: 'CSQU 305438 0',
      carrierId: acme,
      type: 'container',
      confirmNew: true,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.warnings).toEqual([expect.stringMatching(/^check-digit: .*should end in 3/)]);
  });

  it('a right check digit, or a number that is not a container number, goes straight in', async () => {
    for (const number of ['MSKU 907032 3', 'PRFU 482113']) {
      const res = await checkIn({ number, carrierId: acme });
      expect(res.status, `${number}: ${res.text}`).toBe(201);
      expect(res.body.warnings).toEqual([]);
    }
  });

  it('a wrong digit on a number also known elsewhere: one answer says both', async () => {
    await seedRows(t).trailer({ carrierId: prairie, number: 'BICU 123456 7' });
    const res = await checkIn({ number: 'BICU 123456 7', carrierId: acme });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      code: 'same-number-unit',
      matches: [{ carrierName: 'Prairie Haulage' }],
      checkDigit: { expectedCheckDigit: 5, correctedNumber: 'BICU 123456 5' },
    });
  });
});
