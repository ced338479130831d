import { describe, expect, it } from 'vitest';
import {
  type AvailabilityInput,
  type BookingRules,
  checkStart,
  type DoorBookings,
  freeSlots,
  lockDays,
} from '../../../shared/modules/appointments/availability.js';
import { DoorLoad, parsePackedIntervals } from '../../../shared/modules/appointments/door-load.js';
import { inDoorOrder } from '../../../shared/modules/appointments/door-order.js';

/**
 * Hand-worked vectors for docs/domain.md "Booking rules". Every expected instant is written as the
 * yard's wall clock with its offset and parsed by the platform (Date.parse), never computed by the
 * code under test; the comments work each one out.
 *
 * The yard is in Europe/Berlin: CET (+01:00) in winter, CEST (+02:00) in summer. In 2026 summer
 * time ends on Sunday 25 October (03:00 CEST -> 02:00 CET, at 01:00Z: 02:00-03:00 happens twice);
 * in 2027 it starts on Sunday 28 March (02:00 CET -> 03:00 CEST, at 01:00Z: 02:00-03:00 never
 * happens). Wednesday 1 July 2026 is an ordinary summer day (+02:00).
 */
const at = (iso: string) => Date.parse(iso);
const MIN = 60_000;

function rules(over: Partial<BookingRules> = {}): BookingRules {
  return {
    timeZone: 'Europe/Berlin',
    openHours: {},
    closedDates: [],
    slotMinutes: 60,
    leadTimeMinMinutes: 0,
    leadTimeMaxDays: 30,
    ...over,
  };
}

const door = (id: string, name: string, capacity = 1, bookings: [string, string][] = []): DoorBookings => ({
  id,
  name,
  capacity,
  bookings: bookings.map(([s, e]) => ({ startAt: at(s), endAt: at(e) })),
});

const LONG_BEFORE = at('2026-06-01T00:00:00Z');

function starts(
  input: Omit<AvailabilityInput, 'now'> & { now?: number; fromDate: string; toDate: string },
): number[] {
  return freeSlots({ now: LONG_BEFORE, ...input }).map((s) => s.startAt);
}

describe('freeSlots: DST days have their real length', () => {
  it('fall-back day offers the repeated hour twice, with different offsets', () => {
    // Sunday 2026-10-25, open 00:00-05:00, hourly grid, 60 minutes. The day opens at 00:00+02:00
    // (24th 22:00Z) and closes at 05:00+01:00 (04:00Z): six real hours. Starts whose hour ends by
    // 04:00Z: 00:00+02, 01:00+02, 02:00+02 (00:00Z), 02:00+01 (01:00Z), 03:00+01, 04:00+01.
    const got = starts({
      rules: rules({ openHours: { '7': [{ from: '00:00', to: '05:00' }] } }),
      durationMinutes: 60,
      doors: [door('d1', 'Door 1')],
      now: at('2026-10-20T00:00:00Z'),
      fromDate: '2026-10-25',
      toDate: '2026-10-25',
    });
    expect(got).toEqual(
      [
        '2026-10-25T00:00:00+02:00',
        '2026-10-25T01:00:00+02:00',
        '2026-10-25T02:00:00+02:00',
        '2026-10-25T02:00:00+01:00',
        '2026-10-25T03:00:00+01:00',
        '2026-10-25T04:00:00+01:00',
      ].map(at),
    );
  });

  it('spring-forward day has no starts in the missing hour and is an hour shorter', () => {
    // Sunday 2027-03-28, open 00:00-05:00: from 00:00+01:00 (27th 23:00Z) to 05:00+02:00 (03:00Z),
    // four real hours. 02:00 does not exist. Starts: 00:00+01, 01:00+01, 03:00+02 (01:00Z), 04:00+02.
    const got = starts({
      rules: rules({ openHours: { '7': [{ from: '00:00', to: '05:00' }] } }),
      durationMinutes: 60,
      doors: [door('d1', 'Door 1')],
      now: at('2027-03-20T00:00:00Z'),
      fromDate: '2027-03-28',
      toDate: '2027-03-28',
    });
    expect(got).toEqual(
      [
        '2027-03-28T00:00:00+01:00',
        '2027-03-28T01:00:00+01:00',
        '2027-03-28T03:00:00+02:00',
        '2027-03-28T04:00:00+02:00',
      ].map(at),
    );
  });

  it('fall-back day: a span ending in the repeated hour ends at its second pass; slots in time order', () => {
    // Sunday 2026-10-25, open 00:00-02:30 wall clock, 30-minute grid, 30 minutes. The clock reads
    // 02:30 at 00:30Z (+02:00) and again at 01:30Z (+01:00); the span closes at the last of them.
    // Starts, in time order: 00:00, 00:30, 01:00, 01:30, 02:00 (+02:00), 02:30 (+02:00), then
    // 02:00 (+01:00) ending at 01:30Z; 02:30 (+01:00) would end after closing.
    const got = starts({
      rules: rules({ slotMinutes: 30, openHours: { '7': [{ from: '00:00', to: '02:30' }] } }),
      durationMinutes: 30,
      doors: [door('d1', 'Door 1')],
      now: at('2026-10-20T00:00:00Z'),
      fromDate: '2026-10-25',
      toDate: '2026-10-25',
    });
    expect(got).toEqual(
      [
        '2026-10-25T00:00:00+02:00',
        '2026-10-25T00:30:00+02:00',
        '2026-10-25T01:00:00+02:00',
        '2026-10-25T01:30:00+02:00',
        '2026-10-25T02:00:00+02:00',
        '2026-10-25T02:30:00+02:00',
        '2026-10-25T02:00:00+01:00',
      ].map(at),
    );
  });

  it('spring-forward day: a span from a time that does not exist opens when the clock jumps', () => {
    // Sunday 2027-03-28, open 02:30-05:00: 02:30 never shows; the clock jumps from 02:00+01:00 to
    // 03:00+02:00 (01:00Z), and the yard opens then. 30-minute grid, 60 minutes: 03:00, 03:30,
    // 04:00 (+02:00).
    const got = starts({
      rules: rules({ slotMinutes: 30, openHours: { '7': [{ from: '02:30', to: '05:00' }] } }),
      durationMinutes: 60,
      doors: [door('d1', 'Door 1')],
      now: at('2027-03-20T00:00:00Z'),
      fromDate: '2027-03-28',
      toDate: '2027-03-28',
    });
    expect(got).toEqual(
      ['2027-03-28T03:00:00+02:00', '2027-03-28T03:30:00+02:00', '2027-03-28T04:00:00+02:00'].map(at),
    );
  });

  it('counts the grid on the wall clock from midnight, not in elapsed time', () => {
    // Same spring-forward day, 45-minute grid, 30 minutes. Wall-clock grid: 00:00, 00:45, 01:30,
    // (02:15 does not exist), 03:00, 03:45, 04:30 (ends 05:00+02:00, fits). Counting elapsed time
    // from midnight would give 03:15 and 04:00 instead: wrong.
    const got = starts({
      rules: rules({ slotMinutes: 45, openHours: { '7': [{ from: '00:00', to: '05:00' }] } }),
      durationMinutes: 30,
      doors: [door('d1', 'Door 1')],
      now: at('2027-03-20T00:00:00Z'),
      fromDate: '2027-03-28',
      toDate: '2027-03-28',
    });
    expect(got).toEqual(
      [
        '2027-03-28T00:00:00+01:00',
        '2027-03-28T00:45:00+01:00',
        '2027-03-28T01:30:00+01:00',
        '2027-03-28T03:00:00+02:00',
        '2027-03-28T03:45:00+02:00',
        '2027-03-28T04:30:00+02:00',
      ].map(at),
    );
  });
});

describe('freeSlots: opening spans', () => {
  it('open round the clock on two days: every hour once, midnight once, an empty span nothing', () => {
    // Wednesday and Thursday 2026-07-01/02 open 00:00-24:00 (summer, +02:00), hourly, 60 minutes:
    // 24 starts a day, 48 in all, none twice (24:00 of the first is 00:00 of the second). Friday's
    // span 10:00-10:00 is empty: no start.
    const got = starts({
      rules: rules({
        openHours: {
          '3': [{ from: '00:00', to: '24:00' }],
          '4': [{ from: '00:00', to: '24:00' }],
          '5': [{ from: '10:00', to: '10:00' }],
        },
      }),
      durationMinutes: 60,
      doors: [door('d1', 'Door 1')],
      now: at('2026-06-15T00:00:00Z'), // both days within the 30 days' lead time
      fromDate: '2026-07-01',
      toDate: '2026-07-03',
    });
    expect(got).toHaveLength(48);
    expect(new Set(got).size).toBe(48);
    expect(got[0]).toBe(at('2026-07-01T00:00:00+02:00'));
    expect(got[24]).toBe(at('2026-07-02T00:00:00+02:00'));
    expect(got[47]).toBe(at('2026-07-02T23:00:00+02:00'));
  });

  it('a span that ends before the duration fits offers only the starts that end in it', () => {
    // Wednesday 2026-07-01, spans 08:00-10:30 and 13:00-13:45, 30-minute grid, 60 minutes.
    // 08:00, 08:30, 09:00, 09:30 end by 10:30; 10:00 would end at 11:00. 13:45 - 13:00 < 60: none.
    const got = starts({
      rules: rules({
        slotMinutes: 30,
        openHours: {
          '3': [
            { from: '08:00', to: '10:30' },
            { from: '13:00', to: '13:45' },
          ],
        },
      }),
      durationMinutes: 60,
      doors: [door('d1', 'Door 1')],
      fromDate: '2026-07-01',
      toDate: '2026-07-01',
    });
    expect(got).toEqual(
      [
        '2026-07-01T08:00:00+02:00',
        '2026-07-01T08:30:00+02:00',
        '2026-07-01T09:00:00+02:00',
        '2026-07-01T09:30:00+02:00',
      ].map(at),
    );
  });

  it('spans that touch count as one; spans with a gap do not', () => {
    // 08:00-10:00 + 10:00-12:00 is 08:00-12:00: 120 minutes start at 08:00, 09:00, 10:00.
    // 14:00-15:00 + 15:30-17:00 is two spans: 120 minutes fit in neither.
    const got = starts({
      rules: rules({
        openHours: {
          '3': [
            { from: '10:00', to: '12:00' },
            { from: '08:00', to: '10:00' },
            { from: '14:00', to: '15:00' },
            { from: '15:30', to: '17:00' },
          ],
        },
      }),
      durationMinutes: 120,
      doors: [door('d1', 'Door 1')],
      fromDate: '2026-07-01',
      toDate: '2026-07-01',
    });
    expect(got).toEqual(
      ['2026-07-01T08:00:00+02:00', '2026-07-01T09:00:00+02:00', '2026-07-01T10:00:00+02:00'].map(at),
    );
  });

  it('spans that touch across midnight count as one', () => {
    // Tuesday 22:00-24:00 + Wednesday 00:00-02:00 is Tue 22:00 - Wed 02:00. 180 minutes: Tue 22:00
    // (ends Wed 01:00) and Tue 23:00 (ends Wed 02:00); Wed 00:00 would end at 03:00.
    const got = starts({
      rules: rules({
        openHours: { '2': [{ from: '22:00', to: '24:00' }], '3': [{ from: '00:00', to: '02:00' }] },
      }),
      durationMinutes: 180,
      doors: [door('d1', 'Door 1')],
      fromDate: '2026-06-30',
      toDate: '2026-07-01',
    });
    expect(got).toEqual(['2026-06-30T22:00:00+02:00', '2026-06-30T23:00:00+02:00'].map(at));
  });

  it('closed dates offer nothing, also to a slot that would run into them', () => {
    // Open every day 08:00-10:00 and 22:00-24:00, 00:00-02:00 on Thursday too; Thursday
    // 2026-07-02 closed. 120 minutes: Wed 08:00 and Wed 22:00 (ends at midnight, half-open: fits);
    // Wed 23:00 would need Thursday's hours; Thursday offers nothing.
    const week = Object.fromEntries(
      ['1', '2', '3', '4', '5', '6', '7'].map((d) => [
        d,
        [
          { from: '00:00', to: '02:00' },
          { from: '08:00', to: '10:00' },
          { from: '22:00', to: '24:00' },
        ],
      ]),
    );
    const got = starts({
      rules: rules({ openHours: week, closedDates: ['2026-07-02'] }),
      durationMinutes: 120,
      doors: [door('d1', 'Door 1')],
      fromDate: '2026-07-01',
      toDate: '2026-07-02',
    });
    // Wed 00:00 fits 00:00-02:00 as well.
    expect(got).toEqual(
      ['2026-07-01T00:00:00+02:00', '2026-07-01T08:00:00+02:00', '2026-07-01T22:00:00+02:00'].map(at),
    );
  });
});

describe('freeSlots: lead time', () => {
  const open = rules({
    slotMinutes: 30,
    leadTimeMinMinutes: 120,
    leadTimeMaxDays: 2,
    openHours: Object.fromEntries(
      ['1', '2', '3', '4', '5', '6', '7'].map((d) => [d, [{ from: '08:00', to: '18:00' }]]),
    ),
  });

  it('starts no earlier than now + leadTimeMinMinutes, the bound itself included', () => {
    // now 07:00Z = 09:00+02:00; + 120 minutes = 11:00+02:00, which is on the grid and offered.
    const first = freeSlots({
      rules: open,
      durationMinutes: 30,
      doors: [door('d1', 'Door 1')],
      now: at('2026-07-01T07:00:00Z'),
      fromDate: '2026-07-01',
      toDate: '2026-07-01',
    })[0];
    expect(first?.startAt).toBe(at('2026-07-01T11:00:00+02:00'));
    // One minute later the bound is 11:01: the first start is 11:30.
    const later = freeSlots({
      rules: open,
      durationMinutes: 30,
      doors: [door('d1', 'Door 1')],
      now: at('2026-07-01T07:01:00Z'),
      fromDate: '2026-07-01',
      toDate: '2026-07-01',
    })[0];
    expect(later?.startAt).toBe(at('2026-07-01T11:30:00+02:00'));
  });

  it('offers dates up to leadTimeMaxDays after the yard-local today', () => {
    // now 2026-07-01T23:30Z is already Thursday 2 July 01:30 in the yard: today = 07-02, so with
    // 2 days the last date offered is Saturday 07-04 (a UTC today would stop at 07-03).
    const slots = freeSlots({
      rules: open,
      durationMinutes: 30,
      doors: [door('d1', 'Door 1')],
      now: at('2026-07-01T23:30:00Z'),
      fromDate: '2026-07-01',
      toDate: '2026-07-10',
    });
    expect(slots[0]?.startAt).toBe(at('2026-07-02T08:00:00+02:00'));
    // Last start of 07-04: 17:30 (ends 18:00).
    expect(slots[slots.length - 1]?.startAt).toBe(at('2026-07-04T17:30:00+02:00'));
    // Three days x 20 half-hours (08:00..17:30).
    expect(slots).toHaveLength(60);
  });
});

describe('freeSlots: door capacity', () => {
  const hours = rules({ slotMinutes: 30, openHours: { '3': [{ from: '08:00', to: '12:00' }] } });

  it('capacity 2 with overlapping bookings, half-open intervals, doors in natural order', () => {
    // Door 2 (capacity 2) holds 09:00-10:00 and 09:30-10:30: 1 appointment 09:00-09:30, 2 from
    // 09:30 to 10:00, 1 until 10:30. A 60-minute slot is full there when it covers 09:30-10:00:
    // 09:00 and 09:30 are taken; 08:30 ends at 09:30 (half-open) and 10:00 starts at 10:00.
    // Door 10 (capacity 1) holds 10:00-11:00: taken for 09:30, 10:00, 10:30; 09:00 ends at 10:00
    // and 11:00 starts at 11:00, both free. "Door 2" comes before "Door 10".
    const slots = freeSlots({
      rules: hours,
      durationMinutes: 60,
      doors: [
        door('b', 'Door 10', 1, [['2026-07-01T10:00:00+02:00', '2026-07-01T11:00:00+02:00']]),
        door('a', 'Door 2', 2, [
          ['2026-07-01T09:00:00+02:00', '2026-07-01T10:00:00+02:00'],
          ['2026-07-01T09:30:00+02:00', '2026-07-01T10:30:00+02:00'],
        ]),
      ],
      now: LONG_BEFORE,
      fromDate: '2026-07-01',
      toDate: '2026-07-01',
    });
    expect(slots.map((s) => [s.startAt, s.endAt - s.startAt, s.doors.map((d) => d.name)])).toEqual([
      [at('2026-07-01T08:00:00+02:00'), 60 * MIN, ['Door 2', 'Door 10']],
      [at('2026-07-01T08:30:00+02:00'), 60 * MIN, ['Door 2', 'Door 10']],
      [at('2026-07-01T09:00:00+02:00'), 60 * MIN, ['Door 10']],
      [at('2026-07-01T10:00:00+02:00'), 60 * MIN, ['Door 2']],
      [at('2026-07-01T10:30:00+02:00'), 60 * MIN, ['Door 2']],
      [at('2026-07-01T11:00:00+02:00'), 60 * MIN, ['Door 2', 'Door 10']],
    ]);
  });

  it('back-to-back bookings never count together (half-open): capacity 2 stays free', () => {
    // Two bookings 09:00-09:30 and 09:30-10:00 at a door of capacity 2: at most 1 at any instant,
    // so every start 08:00..11:00 is free: 7 starts.
    const got = starts({
      rules: hours,
      durationMinutes: 60,
      doors: [
        door('a', 'Door 1', 2, [
          ['2026-07-01T09:00:00+02:00', '2026-07-01T09:30:00+02:00'],
          ['2026-07-01T09:30:00+02:00', '2026-07-01T10:00:00+02:00'],
        ]),
      ],
      fromDate: '2026-07-01',
      toDate: '2026-07-01',
    });
    expect(got).toHaveLength(7);
  });
});

describe('checkStart', () => {
  const hours = rules({
    slotMinutes: 30,
    leadTimeMinMinutes: 120,
    leadTimeMaxDays: 30,
    openHours: { '3': [{ from: '08:00', to: '12:00' }] },
  });
  const full = door('a', 'Door 2', 1, [['2026-07-01T09:00:00+02:00', '2026-07-01T10:00:00+02:00']]);
  const free = door('b', 'Door 10', 1);
  const base = { rules: hours, durationMinutes: 60, doors: [free, full], now: LONG_BEFORE };

  it('assigns the first free door in door order', () => {
    expect(checkStart({ ...base, startAt: at('2026-07-01T08:00:00+02:00') })).toEqual({
      ok: true,
      doorId: 'a',
    });
    // Door 2 is full 09:00-10:00: Door 10.
    expect(checkStart({ ...base, startAt: at('2026-07-01T09:00:00+02:00') })).toEqual({
      ok: true,
      doorId: 'b',
    });
  });

  it('names why a start is not bookable', () => {
    const reason = (over: Partial<Parameters<typeof checkStart>[0]>) => {
      const r = checkStart({ ...base, startAt: at('2026-07-01T08:00:00+02:00'), ...over });
      return r.ok ? 'ok' : r.reason;
    };
    expect(reason({ startAt: at('2026-07-01T08:15:00+02:00') })).toBe('off-grid');
    expect(reason({ rules: { ...hours, closedDates: ['2026-07-01'] } })).toBe('closed-date');
    // 11:30 + 60 minutes ends at 12:30, after closing.
    expect(reason({ startAt: at('2026-07-01T11:30:00+02:00') })).toBe('outside-hours');
    // now 06:00+02:00 + 120 minutes = 08:00: allowed; one minute later it is too soon.
    expect(reason({ now: at('2026-07-01T06:00:00+02:00') })).toBe('ok');
    expect(reason({ now: at('2026-07-01T06:01:00+02:00') })).toBe('lead-time-min');
    // Today 2026-05-31 (yard-local) + 30 days = 06-30: 07-01 is one day too far.
    expect(reason({ now: at('2026-05-31T12:00:00+02:00') })).toBe('lead-time-max');
    expect(reason({ now: at('2026-06-01T00:00:00+02:00') })).toBe('ok');
    expect(reason({ doorId: 'elsewhere' })).toBe('door-not-allowed');
    expect(reason({ doorId: 'a', startAt: at('2026-07-01T09:30:00+02:00') })).toBe('slot-taken');
    expect(reason({ doors: [full], startAt: at('2026-07-01T09:00:00+02:00') })).toBe('slot-taken');
    // Half-open: 08:00-09:00 ends where the booking 09:00-10:00 starts: free.
    expect(reason({ doors: [full] })).toBe('ok');
  });

  it('says the reason in the words the person booking reads, with the field at fault', () => {
    const refusal = (over: Partial<Parameters<typeof checkStart>[0]>) => {
      const r = checkStart({ ...base, startAt: at('2026-07-01T08:00:00+02:00'), ...over });
      return r.ok ? 'ok' : `${r.field}: ${r.message}`;
    };
    expect(refusal({ startAt: at('2026-07-01T08:15:00+02:00') })).toBe(
      'startAt: Start times are every 30 minutes from midnight.',
    );
    expect(refusal({ rules: { ...hours, closedDates: ['2026-07-01'] } })).toBe(
      'startAt: The yard is closed on 2026-07-01.',
    );
    expect(refusal({ startAt: at('2026-07-01T11:30:00+02:00') })).toBe(
      'startAt: The whole appointment must fall within the opening hours.',
    );
    expect(refusal({ now: at('2026-07-01T06:01:00+02:00') })).toBe('startAt: Book at least 2 hours ahead.');
    const lead = (minutes: number) => ({
      rules: { ...hours, leadTimeMinMinutes: minutes },
      now: at('2026-07-01T07:59:00+02:00'),
    });
    expect(refusal(lead(60))).toBe('startAt: Book at least 1 hour ahead.');
    expect(refusal(lead(90))).toBe('startAt: Book at least 90 minutes ahead.');
    expect(refusal({ now: at('2026-05-31T12:00:00+02:00') })).toBe('startAt: Book at most 30 days ahead.');
    expect(refusal({ doorId: 'elsewhere' })).toBe('doorId: This load type cannot use that door.');
    expect(refusal({ doorId: 'a', startAt: at('2026-07-01T09:30:00+02:00') })).toBe(
      'startAt: That door is fully booked at that time.',
    );
    expect(refusal({ doors: [full], startAt: at('2026-07-01T09:00:00+02:00') })).toBe(
      'startAt: No door is free for the whole time.',
    );
  });

  it('an override skips grid, hours, closed dates and lead time, never capacity', () => {
    const override = { reason: 'urgent reefer' };
    const offGridAtNight = at('2026-07-01T20:10:00+02:00');
    expect(checkStart({ ...base, override, startAt: offGridAtNight, now: offGridAtNight })).toEqual({
      ok: true,
      doorId: 'a',
    });
    expect(
      checkStart({
        ...base,
        override,
        rules: { ...hours, closedDates: ['2026-07-01'] },
        startAt: at('2026-07-01T09:10:00+02:00'),
      }),
    ).toEqual({ ok: true, doorId: 'b' });
    const r = checkStart({ ...base, override, doors: [full], startAt: at('2026-07-01T09:10:00+02:00') });
    expect(r.ok ? 'ok' : r.reason).toBe('slot-taken');
  });

  it('accepts both starts of the fall-back repeated hour', () => {
    const fallBack = {
      rules: rules({ openHours: { '7': [{ from: '00:00', to: '05:00' }] } }),
      durationMinutes: 60,
      doors: [door('d1', 'Door 1')],
      now: at('2026-10-20T00:00:00Z'),
    };
    expect(checkStart({ ...fallBack, startAt: at('2026-10-25T02:00:00+02:00') }).ok).toBe(true);
    expect(checkStart({ ...fallBack, startAt: at('2026-10-25T02:00:00+01:00') }).ok).toBe(true);
    // 04:30+01:00 is off the hourly grid.
    expect(checkStart({ ...fallBack, startAt: at('2026-10-25T04:30:00+01:00') }).ok).toBe(false);
  });
});

describe('lockDays', () => {
  it('names each yard-local date the booking touches, in order; ending at midnight touches one', () => {
    // Tue 23:00 - Wed 01:00 (+02:00): both dates.
    expect(
      lockDays(at('2026-06-30T23:00:00+02:00'), at('2026-07-01T01:00:00+02:00'), 'Europe/Berlin'),
    ).toEqual(['2026-06-30', '2026-07-01']);
    // Tue 22:00 - Wed 00:00: only Tuesday (half-open). In UTC these are 20:00Z-22:00Z on Tuesday
    // too, but 2026-06-30T23:30Z is Wednesday 01:30 in the yard.
    expect(
      lockDays(at('2026-06-30T22:00:00+02:00'), at('2026-07-01T00:00:00+02:00'), 'Europe/Berlin'),
    ).toEqual(['2026-06-30']);
    expect(lockDays(at('2026-06-30T23:30:00Z'), at('2026-07-01T00:30:00Z'), 'Europe/Berlin')).toEqual([
      '2026-07-01',
    ]);
  });
});

describe('door order', () => {
  it('is natural: Door 2 before Door 10, case does not matter', () => {
    const doors = ['Door 10', 'door 1', 'Door 2', 'Door 9B', 'Door 9A'].map((name, i) => ({
      id: String(i),
      name,
    }));
    expect(inDoorOrder(doors).map((d) => d.name)).toEqual([
      'door 1',
      'Door 2',
      'Door 9A',
      'Door 9B',
      'Door 10',
    ]);
  });
});

describe('packed bookings (a month read as one text per door)', () => {
  it('parse "offset,length,..." from a base to [start, end] pairs and count like objects', () => {
    // 1000-2000 and 1500-2500: two at once during 1500-2000.
    expect([...parsePackedIntervals('1000,1000,1500,1000')]).toEqual([1000, 2000, 1500, 2500]);
    expect([...parsePackedIntervals('0,3600000,86400000,1800000', 1782900000000)]).toEqual([
      1782900000000, 1782903600000, 1782986400000, 1782988200000,
    ]);
    expect([...parsePackedIntervals('')]).toEqual([]);
    // A booking of no length holds nothing (a door is never full at no instant).
    expect(new DoorLoad(parsePackedIntervals('1000,0,1000,1000')).peak(1000, 2000)).toBe(1);
    const load = new DoorLoad(parsePackedIntervals('1000,1000,1500,1000'));
    expect([load.peak(0, 1000), load.peak(0, 1001), load.peak(1500, 1501), load.peak(2000, 3000)]).toEqual([
      0, 1, 2, 1,
    ]);
  });
});
