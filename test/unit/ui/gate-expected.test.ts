import { describe, expect, it } from 'vitest';
import {
  applyChange,
  byTime,
  countByStatus,
  expectedStatus,
  matchesFilter,
  mayCheckIn,
} from '../../../shared/ui/gate/appointments/expected-rows';
import { appt } from './appointment-fixture';

const at = (hhmm: string) => Date.parse(`2026-03-02T${hhmm}:00.000Z`);
const day = { yardId: 'y1', from: at('00:00'), to: at('00:00') + 86_400_000 };

describe('gate house expected arrivals: the status the clerk reads', () => {
  it('a scheduled appointment is due up to its grace after the start, late from the next instant', () => {
    const a = appt('a', '10:00');
    expect(expectedStatus(a, at('09:00'), 15)).toBe('due');
    expect(expectedStatus(a, at('10:15'), 15)).toBe('due');
    expect(expectedStatus(a, at('10:15') + 1, 15)).toBe('late');
    expect(expectedStatus(a, at('10:01'), 0)).toBe('late');
  });

  it('arrived, docked, completed and no-show follow the server; cancelled is not shown', () => {
    const now = at('12:00');
    expect(expectedStatus(appt('a', '10:00', { status: 'arrived' }), now, 15)).toBe('arrived');
    expect(expectedStatus(appt('a', '10:00', { status: 'docked' }), now, 15)).toBe('docked');
    expect(expectedStatus(appt('a', '10:00', { status: 'completed' }), now, 15)).toBe('completed');
    expect(expectedStatus(appt('a', '10:00', { status: 'no_show' }), now, 15)).toBe('no_show');
    expect(expectedStatus(appt('a', '10:00', { status: 'cancelled' }), now, 15)).toBeNull();
  });

  it('only an appointment not yet arrived can be checked in (a no-show still, as late)', () => {
    expect(
      ['due', 'late', 'no_show', 'arrived', 'docked', 'completed', null].filter((s) =>
        mayCheckIn(s as never),
      ),
    ).toEqual(['due', 'late', 'no_show']);
  });

  it('orders by time, then door in natural order, then code', () => {
    const rows = [
      appt('c', '10:00', { doorName: 'Door 10' }),
      appt('b', '10:00', { doorName: 'Door 2' }),
      appt('a', '09:30', { doorName: 'Door 10' }),
    ].sort(byTime);
    expect(rows.map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });

  it('counts per status as shown', () => {
    const rows = [
      appt('a', '08:00', { status: 'arrived' }),
      appt('b', '09:00'),
      appt('c', '11:00'),
      appt('d', '07:00', { status: 'no_show' }),
    ];
    expect(countByStatus(rows, at('09:30'), 15)).toEqual({
      due: 1,
      late: 1,
      arrived: 1,
      docked: 0,
      completed: 0,
      no_show: 1,
    });
  });
});

describe('gate house expected arrivals: a live change', () => {
  const rows = [appt('a', '08:00'), appt('b', '09:00')];

  it('replaces the row of the changed appointment, keeping the order by time', () => {
    const out = applyChange(rows, appt('a', '08:00', { status: 'arrived', version: 2 }), day);
    expect(out.map((r) => [r.id, r.status])).toEqual([
      ['a', 'arrived'],
      ['b', 'scheduled'],
    ]);
  });

  it('a rescheduled appointment moves to its new time; one moved to another day leaves', () => {
    const later = applyChange(rows, appt('a', '11:00', { version: 2 }), day);
    expect(later.map((r) => r.id)).toEqual(['b', 'a']);
    const tomorrow = appt('a', '08:00', { version: 2, startAt: '2026-03-03T08:00:00.000Z' });
    expect(applyChange(rows, tomorrow, day).map((r) => r.id)).toEqual(['b']);
  });

  it('a new booking for today joins; one for another yard or cancelled does not', () => {
    expect(applyChange(rows, appt('n', '08:30'), day).map((r) => r.id)).toEqual(['a', 'n', 'b']);
    expect(applyChange(rows, appt('n', '08:30', { yardId: 'y2' }), day).map((r) => r.id)).toEqual(['a', 'b']);
    const cancelled = appt('b', '09:00', { status: 'cancelled', version: 2 });
    expect(applyChange(rows, cancelled, day).map((r) => r.id)).toEqual(['a']);
  });

  it('ignores an older version than the row shows (an event that crossed a reload)', () => {
    const current = [appt('a', '08:00', { status: 'arrived', version: 3 })];
    expect(applyChange(current, appt('a', '08:00', { version: 2 }), day)[0]?.status).toBe('arrived');
  });
});

describe('gate house expected arrivals: the filter box', () => {
  const a = appt('a', '10:00', {
    code: 'K7MQ3XPA',
    refs: ['PO-55120', 'BOL 77031'],
    carrierName: 'Prairie Haulers',
    trailerNumber: 'PRHL 5304',
    truckPlate: 'TX 5520',
  });

  it('finds by code, ref or trailer number whatever the case, spaces and dashes', () => {
    expect(matchesFilter(a, 'k7mq-3xpa')).toBe(true);
    expect(matchesFilter(a, 'po55120')).toBe(true);
    expect(matchesFilter(a, 'bol-77031')).toBe(true);
    expect(matchesFilter(a, 'prhl5304')).toBe(true);
    expect(matchesFilter(a, '5304')).toBe(true);
    expect(matchesFilter(a, 'tx5520')).toBe(true);
    expect(matchesFilter(a, 'K7MQ3XPB')).toBe(false);
    expect(matchesFilter(a, 'PO-55121')).toBe(false);
  });

  it('finds by carrier name, and by carrier + trailer when every word matches', () => {
    expect(matchesFilter(a, 'prairie')).toBe(true);
    expect(matchesFilter(a, 'HAULERS')).toBe(true);
    expect(matchesFilter(a, 'prairie 5304')).toBe(true);
    expect(matchesFilter(a, 'lone star 5304')).toBe(false);
    expect(matchesFilter(a, 'prairie 9999')).toBe(false);
  });

  it('an empty filter keeps every row', () => {
    expect(matchesFilter(a, '')).toBe(true);
    expect(matchesFilter(a, '   ')).toBe(true);
  });
});
