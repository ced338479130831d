import { describe, expect, it } from 'vitest';
import {
  fillFromAppointment,
  type Known,
  looksLikeCode,
  matchSummary,
  normalCode,
  preferCarrier,
} from '../../../shared/ui/gate/check-in/from-appointment';
import { EMPTY, movementBody } from '../../../shared/ui/gate/check-in/model';
import { appt } from './appointment-fixture';

const nothingKnown: Known = {
  carrier: null,
  trailer: null,
  truck: null,
  driver: null,
  direction: null,
  doorFree: false,
};
const ctx = { yardId: 'y1', gateId: 'g1', overrideNeeded: false, force: false };

describe('check-in with an appointment code', () => {
  it('reads a code as scanners and people type it', () => {
    expect(normalCode(' k7mq-3xpa\n')).toBe('K7MQ3XPA');
    expect(normalCode('   ')).toBe('');
  });

  it('fills carrier, trailer, truck, driver and load from the booking, with the known records', () => {
    const known: Known = {
      carrier: { id: 'c1', name: 'Lone Star Logistics', scac: 'LSLG', status: 'active' },
      trailer: { id: 't1', number: 'LSLG5310', carrierId: 'c1', inYard: false },
      truck: { id: 'k1', plate: 'TX4410', carrierId: 'c1', inYard: false },
      driver: { id: 'd1', name: 'Dale Brooks', carrierId: 'c1', phone: null, licenseNumber: null },
      direction: 'outbound',
      doorFree: true,
    };
    const a = appt('a', '10:00');
    const patch = fillFromAppointment({ ...EMPTY, overrideReason: 'old' }, a, known);
    expect(patch).toMatchObject({
      code: 'CODEA',
      appointment: { id: 'a', doorId: 'd3', doorName: 'Door 3', doorFree: true },
      carrierText: 'Lone Star Logistics (LSLG)',
      carrier: known.carrier,
      trailerText: 'LSLG5310',
      trailer: known.trailer,
      truckText: 'TX4410',
      truck: known.truck,
      driverText: 'Dale Brooks',
      driver: known.driver,
      overrideReason: '',
      loadStatus: 'empty',
      locationId: 'd3',
    });
    // The movement names the appointment, the units by id, and the door as the place.
    expect(movementBody({ ...EMPTY, ...patch }, ctx)).toMatchObject({
      appointmentId: 'a',
      trailer: { id: 't1' },
      truck: { id: 'k1' },
      driverId: 'd1',
      carrierId: 'c1',
      locationId: 'd3',
      loadStatus: 'empty',
    });
  });

  it('types the booked numbers when no record is known (new units), and leaves a booked door that is taken', () => {
    const a = appt('a', '10:00', { driverName: 'Wanda Walkin' });
    const patch = fillFromAppointment({ ...EMPTY, locationId: 's5' }, a, {
      ...nothingKnown,
      direction: 'inbound',
    });
    expect(patch).toMatchObject({
      carrierText: 'Lone Star Logistics',
      carrier: null,
      trailerText: 'LSLG5310',
      trailer: null,
      truckText: 'TX 4410',
      driverText: 'Wanda Walkin',
      driver: null,
      loadStatus: 'loaded',
    });
    expect(patch).not.toHaveProperty('locationId'); // the suggested spot stays
    expect(fillFromAppointment({ ...EMPTY, locationId: 'd3' }, a, nothingKnown).locationId).toBe('');
  });

  it('keeps what the booking does not say (no trailer, no driver, a load type for both directions)', () => {
    const a = appt('a', '10:00', { trailerNumber: null, truckPlate: null, driverName: null });
    const v = { ...EMPTY, trailerText: 'TYPED 1', driverText: 'Someone', loadStatus: 'unknown' as const };
    const patch = fillFromAppointment(v, a, { ...nothingKnown, direction: 'both' });
    for (const k of ['trailerText', 'truckText', 'driverText', 'loadStatus'] as const)
      expect(patch).not.toHaveProperty(k);
  });

  it('a walk-in sends no appointment', () => {
    expect(movementBody({ ...EMPTY, trailerText: 'A1' }, ctx)).not.toHaveProperty('appointmentId');
  });

  it('says who, when and where; and that an arrived or no-show appointment is one', () => {
    const time = (iso: string) => iso.slice(11, 16);
    const pick = fillFromAppointment(EMPTY, appt('a', '10:00'), nothingKnown).appointment!;
    expect(matchSummary(pick, time)).toBe('Lone Star Logistics, Live unload at 10:00, Door 3.');
    expect(matchSummary({ ...pick, status: 'arrived', arrivedAt: '2026-03-02T10:05:00Z' }, time)).toMatch(
      /Already checked in at 10:05\.$/,
    );
    expect(matchSummary({ ...pick, status: 'no_show' }, time)).toMatch(
      /no-show: checking in records it as arrived late/,
    );
  });
});

describe('the appointment field: a code, or a ref or trailer number', () => {
  it('a code is 8 of the code letters and digits, as scanned or typed', () => {
    expect(looksLikeCode('K7MQ3XPA')).toBe(true);
    expect(looksLikeCode(' k7mq-3xpa ')).toBe(true);
    expect(looksLikeCode('ZZZZ9999')).toBe(true);
    expect(looksLikeCode('K7MQ3XP')).toBe(false); // 7
    expect(looksLikeCode('K7MQ3XPAB')).toBe(false); // 9
    expect(looksLikeCode('K7MQ3XP0')).toBe(false); // 0 is never in a code
    expect(looksLikeCode('K7MQ3XPI')).toBe(false); // nor I, L, O or 1
    expect(looksLikeCode('PO-55120')).toBe(false);
  });

  it('several matches: those of the carrier the form names, else all of them', () => {
    const matches = [
      { id: 'a', carrierId: 'c1' },
      { id: 'b', carrierId: 'c2' },
      { id: 'c', carrierId: 'c2' },
    ];
    expect(preferCarrier(matches, 'c2').map((m) => m.id)).toEqual(['b', 'c']);
    expect(preferCarrier(matches, 'c1').map((m) => m.id)).toEqual(['a']);
    expect(preferCarrier(matches, 'c9').map((m) => m.id)).toEqual(['a', 'b', 'c']);
    expect(preferCarrier(matches, undefined).map((m) => m.id)).toEqual(['a', 'b', 'c']);
  });
});
