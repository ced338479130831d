import { describe, expect, it } from 'vitest';
import type { Slot } from '../../../shared/modules/appointments/availability.js';
import { availabilityJson } from '../../../shared/modules/appointments/availability-json.js';
import { Availability } from '../../../shared/modules/appointments/schema.js';
import { yardClock } from '../../../shared/modules/appointments/wall-clock.js';

/**
 * The availability answer written as bytes (availability-json.ts) says exactly what the answer
 * objects would: parsed back, it equals the hand-written answer and matches the schema. The
 * instants are Europe/Berlin's fall-back morning of 2026-10-25 (02:00-03:00 happens twice, first
 * at +02:00 then at +01:00), so both offsets appear; a door name outside ASCII checks UTF-8.
 */
const at = (iso: string) => Date.parse(iso);
const head = {
  yardId: '0190a7b2-0000-7000-8000-000000000001',
  loadTypeId: '0190a7b2-0000-7000-8000-000000000002',
  timeZone: 'Europe/Berlin',
};
const door3 = { id: '0190a7b2-0000-7000-8000-000000000003', name: 'Tor 3 – Süd "Kühlung"' };
const door10 = { id: '0190a7b2-0000-7000-8000-000000000010', name: 'Door 10' };
const slots: Slot[] = [
  {
    startAt: at('2026-10-25T02:30:00+02:00'),
    endAt: at('2026-10-25T02:30:00+01:00'),
    doors: [door3, door10],
  },
  { startAt: at('2026-10-25T02:30:00+01:00'), endAt: at('2026-10-25T03:30:00+01:00'), doors: [door10] },
  {
    startAt: at('2026-10-25T04:00:00.250+01:00'),
    endAt: at('2026-10-25T05:00:00.250+01:00'),
    doors: [door3],
  },
];

describe('the availability answer as bytes', () => {
  it('parses back to the answer, both offsets of the repeated hour and the door names intact', () => {
    const body = JSON.parse(availabilityJson(head, slots, yardClock('Europe/Berlin'), true).text.toString());
    expect(body).toEqual({
      ...head,
      slots: [
        { startAt: '2026-10-25T02:30:00+02:00', endAt: '2026-10-25T02:30:00+01:00', doors: [door3, door10] },
        { startAt: '2026-10-25T02:30:00+01:00', endAt: '2026-10-25T03:30:00+01:00', doors: [door10] },
        { startAt: '2026-10-25T04:00:00.250+01:00', endAt: '2026-10-25T05:00:00.250+01:00', doors: [door3] },
      ],
    });
    expect(Availability.safeParse(body).error?.issues).toBeUndefined();
  });

  it('leaves the doors out when they are not to be shown, and writes an empty list as one', () => {
    const times = JSON.parse(
      availabilityJson(head, slots.slice(0, 1), yardClock('Europe/Berlin'), false).text.toString(),
    );
    expect(times.slots).toEqual([
      { startAt: '2026-10-25T02:30:00+02:00', endAt: '2026-10-25T02:30:00+01:00' },
    ]);
    const none = JSON.parse(availabilityJson(head, [], yardClock('Europe/Berlin'), true).text.toString());
    expect(none).toEqual({ ...head, slots: [] });
  });
});
