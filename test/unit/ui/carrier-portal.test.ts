import { describe, expect, it } from 'vitest';
import type { Appointment } from '../../../shared/ui/carrier/data';
import { screenOf } from '../../../shared/ui/carrier/route';
import {
  addDays,
  changeOpen,
  changeText,
  clock,
  localDate,
  splitRefs,
} from '../../../shared/ui/carrier/words';

/** The carrier portal's own rules (docs/web-apps.md "Carrier portal"): its addresses, the change window's words. */
const booking = (over: Partial<Appointment>): Appointment =>
  ({
    status: 'scheduled',
    startAt: '2026-03-08T10:30:00-05:00',
    changeUntil: '2026-03-08T06:30:00-05:00',
    ...over,
  }) as Appointment;

describe('carrier portal addresses', () => {
  it('maps each path to its screen, and anything else to none', () => {
    expect(screenOf('/carrier/')).toEqual({ name: 'book' });
    expect(screenOf('/carrier/bookings')).toEqual({ name: 'bookings' });
    expect(screenOf('/carrier/invoices/')).toEqual({ name: 'invoices' });
    expect(screenOf('/carrier/pass/0193a%2Fx')).toEqual({ name: 'pass', id: '0193a/x' });
    expect(screenOf('/carrier/pass/')).toEqual({ name: 'unknown' });
    expect(screenOf('/carrier/elsewhere')).toEqual({ name: 'unknown' });
  });
});

describe('the change window in words, in the yard’s zone', () => {
  const cutoff = Date.parse('2026-03-08T06:30:00-05:00');
  it('is open until changeUntil and closed from it on', () => {
    expect(changeOpen(booking({}), cutoff - 60_000)).toBe(true);
    expect(changeOpen(booking({}), cutoff)).toBe(false);
    expect(changeOpen(booking({}), cutoff + 60_000)).toBe(false);
  });
  it('says until when, or that it closed and whom to call, in the yard’s clock', () => {
    expect(changeText(booking({}), 'America/Chicago', cutoff - 60_000)).toMatch(/^Changes until .*06:30/);
    expect(changeText(booking({}), 'America/Chicago', cutoff + 60_000)).toMatch(
      /^Changes closed at .*06:30.*\. Call the yard to change it\.$/,
    );
    // The same instant read at a Berlin yard is 12:30 there.
    expect(changeText(booking({}), 'Europe/Berlin', cutoff - 60_000)).toMatch(/12:30/);
  });
  it('is never open once the truck arrived or the booking ended, and says nothing then', () => {
    for (const status of ['arrived', 'docked', 'completed', 'cancelled', 'no_show'] as const) {
      expect(changeOpen(booking({ status }), cutoff - 60_000)).toBe(false);
      expect(changeText(booking({ status }), 'America/Chicago', cutoff - 60_000)).toBeNull();
    }
    expect(changeOpen(booking({ changeUntil: null }), 0)).toBe(false);
    expect(changeText(booking({ changeUntil: null }), 'America/Chicago', 0)).toMatch(/Call the yard/);
  });
});

describe('days and refs', () => {
  it('takes the yard-local date from the offset the API wrote, across a DST change', () => {
    expect(localDate('2026-03-08T23:30:00-05:00')).toBe('2026-03-08');
    expect(addDays('2026-03-07', 1)).toBe('2026-03-08');
    expect(addDays('2026-03-08', 1)).toBe('2026-03-09');
    expect(clock('2026-03-08T08:30:00Z', 'America/Chicago')).toMatch(/03:30/);
  });
  it('splits refs typed on one line by commas or spaces, at most ten', () => {
    expect(splitRefs(' PO-1, BOL-2;PO-3  PO-4 ')).toEqual(['PO-1', 'BOL-2', 'PO-3', 'PO-4']);
    expect(splitRefs('')).toEqual([]);
    expect(splitRefs(Array.from({ length: 12 }, (_, i) => `R${i}`).join(','))).toHaveLength(10);
  });
});
