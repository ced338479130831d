import { RawJson } from '../../http/raw-json.js';
import type { Slot } from './availability.js';
import type { YardClock } from './wall-clock.js';

/** The longest ISO text clock.iso writes: 2026-11-01T01:30:00.000-05:00. */
const ISO_MAX = 29;
const SLOT_START = Buffer.from('{"startAt":"');
const SLOT_END_AT = Buffer.from('","endAt":"');
const SLOT_DOORS = Buffer.from('","doors":[');

/**
 * The availability answer (schema.ts Availability) written straight into one buffer. A month at a
 * busy yard is about two thousand slots naming seven thousand free doors: as answer objects with
 * two ISO strings each, kept until stringified, they outlived an edge's small young generation
 * and the copying and old-space collections cost more than finding the slots
 * (test/bench/appointments.ts). Here nothing per slot outlives its own loop turn; each door's JSON
 * is encoded once. Tests check the bytes against the schema (validateResponses).
 */
export function availabilityJson(
  head: { yardId: string; loadTypeId: string; timeZone: string },
  slots: readonly Slot[],
  clock: YardClock,
  /** Staff see the free doors of each slot; a carrier would see the times only. */
  withDoors: boolean,
): RawJson {
  const prefix = Buffer.from(
    `{"yardId":${JSON.stringify(head.yardId)},"loadTypeId":${JSON.stringify(head.loadTypeId)},"timeZone":${JSON.stringify(head.timeZone)},"slots":[`,
  );
  const doorJson = new Map<string, Buffer>();
  let size = prefix.length + 2;
  for (const s of slots) {
    size += SLOT_START.length + SLOT_END_AT.length + 2 * ISO_MAX + 3;
    if (!withDoors) continue;
    size += SLOT_DOORS.length + s.doors.length;
    for (const door of s.doors) {
      let json = doorJson.get(door.id);
      if (!json) {
        json = Buffer.from(JSON.stringify({ id: door.id, name: door.name }));
        doorJson.set(door.id, json);
      }
      size += json.length;
    }
  }
  const out = Buffer.allocUnsafe(size);
  let at = prefix.copy(out, 0);
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i] as Slot;
    if (i > 0) out[at++] = 0x2c; // ,
    at += SLOT_START.copy(out, at);
    at += out.write(clock.iso(s.startAt), at, 'latin1');
    at += SLOT_END_AT.copy(out, at);
    at += out.write(clock.iso(s.endAt), at, 'latin1');
    if (withDoors) {
      at += SLOT_DOORS.copy(out, at);
      for (let k = 0; k < s.doors.length; k++) {
        if (k > 0) out[at++] = 0x2c;
        at += (doorJson.get((s.doors[k] as Slot['doors'][number]).id) as Buffer).copy(out, at);
      }
      out[at++] = 0x5d; // ]
    } else out[at++] = 0x22; // "
    out[at++] = 0x7d; // }
  }
  out[at++] = 0x5d;
  out[at++] = 0x7d;
  return new RawJson(out.subarray(0, at));
}
