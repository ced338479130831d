import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../shared/auth/principal.js';
import { type AppError, NotFoundError } from '../../../shared/http/errors.js';
import {
  assertCarrierLoadType,
  assertCarrierMayChange,
  assertCarrierPatch,
  bookingCarrier,
  carrierAppointmentOut,
  carrierHistoryOut,
} from '../../../shared/modules/appointments/carrier-rules.js';
import {
  changeCutoffRefusal,
  changeUntil,
  durationWords,
} from '../../../shared/modules/appointments/change-cutoff.js';
import type { AppointmentOutT } from '../../../shared/modules/appointments/schema.js';

/** The carrier rules of docs/domain.md "Booking rules", without a database. */
const MINUTE = 60_000;
const CARRIER = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e62';
const OTHER = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e63';
const carrier: Principal = {
  kind: 'user',
  id: 'u1',
  name: 'prairie',
  role: 'carrier',
  carrierId: CARRIER,
  yardIds: null,
};
const dispatcher: Principal = { kind: 'user', id: 'u2', name: 'dana', role: 'dispatcher', yardIds: null };

// Tue 3 Mar 2026 10:30 in Chicago (CST, UTC-6); the default cutoff of 4 hours closes at 06:30.
const START = Date.parse('2026-03-03T16:30:00Z');
const CLOSES = START - 240 * MINUTE;
const facts = (over: Partial<Parameters<typeof changeCutoffRefusal>[0]> = {}) => ({
  startAt: START,
  status: 'scheduled' as const,
  arrivedAt: null,
  changeCutoffMinutes: 240,
  timeZone: 'America/Chicago',
  now: CLOSES - MINUTE,
  ...over,
});

function refusal(over: Partial<Parameters<typeof changeCutoffRefusal>[0]>): Record<string, unknown> {
  const err = changeCutoffRefusal(facts(over));
  if (!err) throw new Error('expected a refusal');
  return { status: err.status, code: err.code, detail: err.detail, ...err.extra };
}

describe('carrier change cutoff', () => {
  it('allows a change until the minute before startAt - changeCutoffMinutes', () => {
    expect(changeCutoffRefusal(facts({ now: CLOSES - MINUTE }))).toBeNull();
    expect(changeCutoffRefusal(facts({ now: CLOSES - 1 }))).toBeNull();
  });

  it('refuses exactly at the cutoff and after it, in words with the yard’s wall clock', () => {
    for (const now of [CLOSES, CLOSES + MINUTE, START + 5 * MINUTE]) {
      expect(refusal({ now })).toEqual({
        status: 409,
        code: 'change-cutoff',
        detail: 'Changes closed at 06:30, 4 hours before the 10:30 start. Call the yard to change it.',
        changeUntil: '2026-03-03T06:30:00-06:00',
      });
    }
  });

  it('names the dates when the cutoff falls on another day than the start', () => {
    const early = Date.parse('2026-03-03T13:00:00Z'); // 07:00 local
    expect(refusal({ startAt: early, changeCutoffMinutes: 600, now: early }).detail).toBe(
      'Changes closed at 21:00 on Mon 2 Mar 2026, 10 hours before the start at 07:00 on Tue 3 Mar 2026. Call the yard to change it.',
    );
    expect(refusal({ changeCutoffMinutes: 0, now: START }).detail).toBe(
      'Changes closed at the 10:30 start. Call the yard to change it.',
    );
  });

  it('refuses after arrival whatever the time, with changeUntil null', () => {
    const arrivedAt = CLOSES - 60 * MINUTE; // 05:30, long before the cutoff
    for (const status of ['arrived', 'docked', 'completed'] as const) {
      expect(refusal({ status, arrivedAt, now: arrivedAt + MINUTE })).toEqual({
        status: 409,
        code: 'change-cutoff',
        detail: 'Changes closed when the truck arrived at 05:30. Call the yard to change it.',
        changeUntil: null,
      });
    }
  });

  it('refuses a no-show and leaves a cancelled appointment to the state rules', () => {
    expect(refusal({ status: 'no_show', now: START + 90 * MINUTE }).code).toBe('change-cutoff');
    expect(changeCutoffRefusal(facts({ status: 'cancelled', now: START }))).toBeNull();
  });

  it('uses the offset in force at each instant across a clock change', () => {
    // Sun 8 Mar 2026: Chicago springs forward at 02:00 CST -> 03:00 CDT. Start 08:00 CDT (13:00Z).
    const start = Date.parse('2026-03-08T13:00:00Z');
    const r = refusal({ startAt: start, changeCutoffMinutes: 420, now: start });
    expect(r.changeUntil).toBe('2026-03-08T00:00:00-06:00');
    expect(r.detail).toBe(
      'Changes closed at 00:00, 7 hours before the 08:00 start. Call the yard to change it.',
    );
  });

  it('checks carrier users only: staff keep changing after the cutoff', () => {
    expect(() => assertCarrierMayChange(dispatcher, facts({ now: START }))).not.toThrow();
    expect(() => assertCarrierMayChange(carrier, facts({ now: START }))).toThrow(
      expect.objectContaining({ code: 'change-cutoff' }),
    );
    expect(() => assertCarrierMayChange(carrier, facts())).not.toThrow();
  });

  it('changeUntil is the cutoff instant while scheduled, else null', () => {
    expect(changeUntil({ startAt: START, status: 'scheduled' }, 240)).toBe(CLOSES);
    for (const status of ['arrived', 'docked', 'completed', 'cancelled', 'no_show'] as const) {
      expect(changeUntil({ startAt: START, status }, 240)).toBeNull();
    }
  });

  it('words durations', () => {
    expect([240, 60, 90, 45, 1, 61, 1440].map(durationWords)).toEqual([
      '4 hours',
      '1 hour',
      '1 hour 30 minutes',
      '45 minutes',
      '1 minute',
      '1 hour 1 minute',
      '24 hours',
    ]);
  });
});

describe('carrier booking input', () => {
  const fieldsOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return { status: (err as AppError).status, paths: ((err as AppError).errors ?? []).map((e) => e.path) };
    }
    throw new Error('expected a refusal');
  };

  it('books for its own carrier, given or left out; another carrier is 404 Carrier', () => {
    expect(bookingCarrier(carrier, {})).toBe(CARRIER);
    expect(bookingCarrier(carrier, { carrierId: CARRIER })).toBe(CARRIER);
    expect(() => bookingCarrier(carrier, { carrierId: OTHER })).toThrow(NotFoundError);
    expect(() => assertCarrierPatch(carrier, { carrierId: OTHER })).toThrow(NotFoundError);
    expect(() => assertCarrierPatch(carrier, { carrierId: CARRIER })).not.toThrow();
  });

  it('never picks a door or overrides the rules (400 on each field)', () => {
    expect(fieldsOf(() => bookingCarrier(carrier, { doorId: OTHER, override: { reason: 'vip' } }))).toEqual({
      status: 400,
      paths: ['doorId', 'override'],
    });
    expect(fieldsOf(() => assertCarrierPatch(carrier, { doorId: OTHER }))).toEqual({
      status: 400,
      paths: ['doorId'],
    });
  });

  it('staff name the carrier (400 without it) and keep doors and overrides', () => {
    expect(fieldsOf(() => bookingCarrier(dispatcher, {}))).toEqual({ status: 400, paths: ['carrierId'] });
    expect(
      bookingCarrier(dispatcher, { carrierId: OTHER, doorId: CARRIER, override: { reason: 'vip' } }),
    ).toBe(OTHER);
    expect(() => assertCarrierPatch(dispatcher, { carrierId: OTHER, doorId: CARRIER })).not.toThrow();
  });

  it('a carrier books carrier-visible load types of the yard only (else 404); staff any', () => {
    const lt = { id: 'lt', yardId: 'y1', carrierVisible: 1 };
    expect(() => assertCarrierLoadType(carrier, lt, 'y1', 'lt')).not.toThrow();
    expect(() => assertCarrierLoadType(carrier, { ...lt, carrierVisible: 0 }, 'y1', 'lt')).toThrow(
      NotFoundError,
    );
    expect(() => assertCarrierLoadType(carrier, lt, 'y2', 'lt')).toThrow(NotFoundError);
    expect(() => assertCarrierLoadType(carrier, undefined, 'y1', 'lt')).toThrow(NotFoundError);
    expect(() => assertCarrierLoadType(dispatcher, { ...lt, carrierVisible: 0 }, 'y1', 'lt')).not.toThrow();
  });
});

describe('carrier reads', () => {
  it('leave out the override reason, who booked and the movement; staff see them', () => {
    const out = {
      overrideReason: 'vip',
      createdBy: 'u2',
      movementId: 'm1',
      code: 'K7M2Q9TX',
    } as unknown as AppointmentOutT;
    expect(carrierAppointmentOut(carrier, out)).toMatchObject({
      overrideReason: null,
      createdBy: null,
      movementId: null,
      code: 'K7M2Q9TX',
    });
    expect(carrierAppointmentOut(dispatcher, out)).toBe(out);
  });

  it('history without actors, doors or override reasons; a reschedule keeps its times', () => {
    const events = [
      { kind: 'booked', actorId: 'u2', reason: 'vip', detail: { override: true } },
      {
        kind: 'rescheduled',
        actorId: 'u2',
        reason: null,
        detail: { from: { startAt: 1, endAt: 2, doorId: 'd1' }, to: { startAt: 3, endAt: 4, doorId: 'd2' } },
      },
      { kind: 'cancelled', actorId: 'u1', reason: 'load not ready', detail: null },
    ];
    expect(carrierHistoryOut(carrier, events)).toEqual([
      { kind: 'booked', actorId: null, reason: null, detail: null },
      {
        kind: 'rescheduled',
        actorId: null,
        reason: null,
        detail: { from: { startAt: 1, endAt: 2 }, to: { startAt: 3, endAt: 4 } },
      },
      { kind: 'cancelled', actorId: null, reason: 'load not ready', detail: null },
    ]);
    expect(carrierHistoryOut(dispatcher, events)).toBe(events);
  });
});
