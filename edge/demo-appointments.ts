import { DateTime } from 'luxon';
import type { YardApp } from '../shared/app.js';
import { newId } from '../shared/ids.js';
import {
  type BookingRules,
  type DoorBookings,
  freeSlots,
} from '../shared/modules/appointments/availability.js';
import { newAppointmentCode } from '../shared/modules/appointments/codes.js';
import { writeHistory } from '../shared/modules/appointments/history.js';
import type { AppointmentStatus } from '../shared/modules/appointments/status.js';
import type { Api, MasterData } from './demo-data.js';

/**
 * The demo's dock appointments (docs/domain.md "Appointments"): the Dallas yard's scheduling config
 * (two shifts that touch on weekdays, shorter weekends, a closed holiday), three load types, Door 6
 * taking two trailers at once, a week of past appointments (on time, early, late, no-shows, a
 * cancellation; docked, completed and departed times; some long enough for detention) and today's
 * arrivals: some already here, some due, the rest booked through the booking API like an office
 * would. Seeded random numbers: every demo has the same week relative to its start.
 *
 * Where things are written: the config, load types and today's later bookings through the HTTP API
 * of the place that books (the cloud, or a standalone edge); the trucks' check-ins and check-outs
 * through the gate's API at the site; the past bookings with their outcomes straight through the
 * booking side's change capture (ChangeCapture, history rows with writeHistory), since the API only
 * books the future and the gate only records the present: the demo's one back door, as for the
 * billing history (demo-billing.ts). Sync then brings everything to the other side.
 */
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

const weekday = [
  { from: '05:00', to: '13:00' },
  { from: '13:00', to: '23:00' },
];
const OPEN_HOURS = {
  '1': weekday,
  '2': weekday,
  '3': weekday,
  '4': weekday,
  '5': weekday,
  '6': [{ from: '06:00', to: '18:00' }],
  '7': [{ from: '08:00', to: '16:00' }],
};
const CONFIG = {
  enabled: true,
  openHours: OPEN_HOURS,
  slotMinutes: 30,
  leadTimeMinMinutes: 120,
  leadTimeMaxDays: 30,
  changeCutoffMinutes: 240,
  lateGraceMinutes: 15,
  noShowAfterMinutes: 60,
  freeTimeMinutes: 120,
};

export interface Scheduling {
  yardId: string;
  timeZone: string;
  rules: BookingRules & { noShowAfterMinutes: number };
  loadTypes: Array<{ id: string; name: string; durationMinutes: number; doorIds: string[] }>;
  doors: Array<{ id: string; name: string; capacity: number }>;
  carriers: Array<{ id: string; scac: string }>;
}

/** The scheduling config, the load types and Door 6's capacity, made where bookings are made. */
export async function seedScheduling(
  api: Api,
  master: MasterData,
  progress: (step: string) => void,
): Promise<Scheduling> {
  const { yard } = master;
  const year = DateTime.now().setZone(yard.timeZone).year;
  const closedDates = [`${year}-12-25`, `${year + 1}-01-01`];
  await api('PUT', `/api/appointment/config/${yard.id}`, { ...CONFIG, closedDates });
  const locations = (await api('GET', `/api/yard/${yard.id}/location?limit=100`)).items as Array<{
    id: string;
    kind: string;
    name: string;
    capacity: number;
  }>;
  const doors = locations.filter((l) => l.kind === 'door');
  const door = (name: string) => doors.find((d) => d.name === name) as { id: string; capacity: number };
  // A wide door that takes two trailers at once (its capacity counts appointments too).
  await api('PATCH', `/api/yard/${yard.id}/location/${door('Door 6').id}`, { capacity: 2 });
  door('Door 6').capacity = 2;
  const loadTypes = [];
  for (const lt of [
    {
      name: 'Live unload',
      direction: 'inbound',
      durationMinutes: 90,
      doors: ['Door 1', 'Door 2', 'Door 3', 'Door 4'],
    },
    { name: 'Drop trailer', direction: 'both', durationMinutes: 30, doors: [] },
    { name: 'Live load', direction: 'outbound', durationMinutes: 60, doors: ['Door 5', 'Door 6'] },
  ]) {
    const made = await api('POST', '/api/appointment/load-type', {
      yardId: yard.id,
      name: lt.name,
      direction: lt.direction,
      durationMinutes: lt.durationMinutes,
      doorIds: lt.doors.map((n) => door(n).id),
    });
    loadTypes.push({
      id: made.id,
      name: made.name,
      durationMinutes: made.durationMinutes,
      doorIds: made.doorIds,
    });
  }
  progress('scheduling config and three load types (live unload, drop trailer, live load)');
  return {
    yardId: yard.id,
    timeZone: yard.timeZone,
    rules: { ...CONFIG, closedDates, timeZone: yard.timeZone },
    loadTypes,
    doors: doors.map((d) => ({ id: d.id, name: d.name, capacity: d.capacity })),
    carriers: master.carriers.map((c) => ({ id: c.id, scac: c.scac })),
  };
}

type Outcome =
  | 'on_time'
  | 'early'
  | 'late'
  | 'long_stay'
  | 'no_show'
  | 'cancelled'
  | 'here'
  | 'docked'
  | 'due';

/** One planned appointment and what happened to it. */
export interface PastAppointment {
  id: string;
  loadTypeId: string;
  doorId: string;
  carrierId: string;
  startAt: number;
  endAt: number;
  trailerNumber: string;
  truckPlate: string;
  driverName: string;
  outcome: Outcome;
  bookedAt: number;
  arrivedAt?: number;
  dockedAt?: number;
  completedAt?: number;
  departedAt?: number;
  /** The check-in and check-out the gate recorded (set by recordGateMovements). */
  inMovementId?: string;
  outMovementId?: string;
}

const DRIVERS = [
  'Ana Ruiz',
  'Ben Carter',
  'Chidi Okoro',
  'Dana Kim',
  'Eli Novak',
  'Fay Brooks',
  'Gus Patel',
  'Hana Sato',
];

/**
 * A week of past appointments and today's up to now (plus a few due within the lead time, booked
 * earlier): free starts and doors come from the booking rules themselves (freeSlots), so the plan
 * never overbooks a door.
 */
export function planAppointments(s: Scheduling, now: number): PastAppointment[] {
  let seed = 20261101;
  const random = () => {
    // mulberry32: small and seeded.
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const between = (a: number, b: number) => a + Math.floor(random() * (b - a));
  const held = new Map(s.doors.map((d) => [d.id, [] as Array<{ startAt: number; endAt: number }>]));
  const today = DateTime.fromMillis(now, { zone: s.timeZone }).startOf('day');
  const plans: PastAppointment[] = [];
  for (let back = 7; back >= 0; back--) {
    const date = today.minus({ days: back }).toISODate() as string;
    const perDay = back === 0 ? 9 : 8;
    for (let n = 0; n < perDay; n++) {
      const loadType = s.loadTypes[n % s.loadTypes.length] as Scheduling['loadTypes'][number];
      const allowed = new Set(loadType.doorIds);
      const doors: DoorBookings[] = s.doors
        .filter((d) => allowed.size === 0 || allowed.has(d.id))
        .map((d) => ({ ...d, bookings: held.get(d.id) ?? [] }));
      // Booked well before: "now" a week before the date, so the lead time allows the whole day.
      const slots = freeSlots({
        rules: { ...s.rules, leadTimeMaxDays: 30 },
        durationMinutes: loadType.durationMinutes,
        doors,
        fromDate: date,
        toDate: date,
        now: now - 8 * DAY,
      }).filter((slot) => (back > 0 ? true : slot.startAt < now + 100 * MIN));
      if (slots.length === 0) continue;
      const slot = slots[Math.floor(random() * slots.length)] as (typeof slots)[number];
      const door = slot.doors[Math.floor(random() * slot.doors.length)] as { id: string };
      held.get(door.id)?.push({ startAt: slot.startAt, endAt: slot.endAt });
      const carrier = s.carriers[plans.length % s.carriers.length] as { id: string; scac: string };
      const p: PastAppointment = {
        id: newId(),
        loadTypeId: loadType.id,
        doorId: door.id,
        carrierId: carrier.id,
        startAt: slot.startAt,
        endAt: slot.endAt,
        trailerNumber: `${carrier.scac}${6100 + plans.length}`,
        truckPlate: `TX${7200 + plans.length}`,
        driverName: DRIVERS[plans.length % DRIVERS.length] as string,
        outcome: 'on_time',
        bookedAt: slot.startAt - between(1, 6) * DAY,
      };
      p.outcome = back > 0 ? pastOutcome(random()) : todayOutcome(p, now);
      happen(p, loadType.durationMinutes, between);
      plans.push(p);
    }
  }
  return plans;
}

function pastOutcome(r: number): Outcome {
  if (r < 0.45) return 'on_time';
  if (r < 0.55) return 'early';
  if (r < 0.72) return 'late';
  if (r < 0.82) return 'long_stay';
  if (r < 0.94) return 'no_show';
  return 'cancelled';
}

/** Today: done and gone, at the door, waiting in the yard, missed, or still due. */
function todayOutcome(p: PastAppointment, now: number): Outcome {
  if (p.endAt + 45 * MIN < now) return 'on_time';
  if (p.startAt + 20 * MIN < now) return p.startAt % (2 * HOUR) === 0 ? 'here' : 'docked';
  return 'due';
}

/** The times of each outcome (arrival early/on time/late by the 15 grace minutes of CONFIG). */
function happen(p: PastAppointment, minutes: number, between: (a: number, b: number) => number) {
  const o = p.outcome;
  if (o === 'due' || o === 'cancelled' || o === 'no_show') return;
  const offset = o === 'early' ? -between(20, 50) : o === 'late' ? between(25, 80) : between(-12, 12);
  p.arrivedAt = p.startAt + offset * MIN;
  if (o === 'here') return;
  p.dockedAt = Math.max(p.arrivedAt, p.startAt) + between(3, o === 'late' ? 40 : 25) * MIN;
  if (o === 'docked') return;
  const stay = o === 'long_stay' ? between(90, 200) : between(-5, 20);
  p.completedAt = p.dockedAt + (minutes + stay) * MIN;
  p.departedAt = p.completedAt + between(5, 25) * MIN;
}

/**
 * The gate's side at the site: each truck that came is checked in (to its door when it went
 * straight there and is still at it) and, once gone, checked out, at its past times.
 */
export async function recordGateMovements(
  site: Api,
  s: Scheduling,
  plans: PastAppointment[],
): Promise<number> {
  let movements = 0;
  for (const p of plans) {
    if (p.arrivedAt === undefined) continue;
    const checkIn = await site('POST', '/api/movement', {
      yardId: s.yardId,
      direction: 'in',
      at: new Date(p.arrivedAt).toISOString(),
      carrierId: p.carrierId,
      trailer: { number: p.trailerNumber, carrierId: p.carrierId },
      truck: { plate: p.truckPlate, plateRegion: 'TX', carrierId: p.carrierId },
      ...(p.outcome === 'docked' ? { locationId: p.doorId } : {}),
      loadStatus: 'loaded',
    });
    p.inMovementId = checkIn.id;
    movements++;
    if (p.departedAt === undefined) continue;
    const checkOut = await site('POST', '/api/movement', {
      yardId: s.yardId,
      direction: 'out',
      at: new Date(p.departedAt).toISOString(),
      trailer: { id: checkIn.trailerId },
      truck: { id: checkIn.truckId },
      loadStatus: 'empty',
    });
    p.outMovementId = checkOut.id;
    movements++;
  }
  return movements;
}

/**
 * Writes the planned bookings with their outcomes and history at the place that books, through its
 * change capture (see the file's comment), in one transaction.
 */
export function pastAppointmentsWriter(
  booking: YardApp,
  s: Scheduling,
): (plans: PastAppointment[]) => Promise<void> {
  const { kysely, changes } = booking.core;
  return (plans) =>
    kysely.transaction().execute(async (trx) => {
      const codes = new Set<string>();
      for (const p of plans) {
        let code = newAppointmentCode();
        while (codes.has(code)) code = newAppointmentCode();
        codes.add(code);
        const noShowAt = p.outcome === 'no_show' ? p.startAt + s.rules.noShowAfterMinutes * MIN : null;
        const cancelledAt = p.outcome === 'cancelled' ? p.startAt - 20 * HOUR : null;
        const arrival = p.arrivedAt === undefined ? null : arrivalOfOutcome(p.outcome);
        await changes.insert(trx, 'appointment', {
          id: p.id,
          yardId: s.yardId,
          doorId: p.doorId,
          loadTypeId: p.loadTypeId,
          startAt: p.startAt,
          endAt: p.endAt,
          carrierId: p.carrierId,
          refs: JSON.stringify([`PO-${48_100 + plans.indexOf(p)}`]),
          trailerNumber: p.trailerNumber,
          truckPlate: p.truckPlate,
          driverName: p.driverName,
          driverPhone: '+12145550142',
          notes: null,
          code,
          overrideReason: null,
          createdBy: null,
          cancelledAt,
          cancelReason: cancelledAt ? 'The carrier moved the load to next week' : null,
          arrivedAt: p.arrivedAt ?? null,
          arrival,
          movementId: p.inMovementId ?? null,
          dockedAt: p.dockedAt ?? null,
          completedAt: p.completedAt ?? null,
          departedAt: p.departedAt ?? null,
          noShowAt,
          createdAt: p.bookedAt,
          updatedAt: Math.max(
            p.bookedAt,
            p.departedAt ?? p.dockedAt ?? p.arrivedAt ?? noShowAt ?? cancelledAt ?? 0,
          ),
        });
        const steps: Array<[number | null | undefined, string, AppointmentStatus | null, AppointmentStatus]> =
          [
            [p.bookedAt, 'booked', null, 'scheduled'],
            [cancelledAt, 'cancelled', 'scheduled', 'cancelled'],
            [noShowAt, 'no_show', 'scheduled', 'no_show'],
            [p.arrivedAt, 'arrived', 'scheduled', 'arrived'],
            [p.dockedAt, 'docked', 'arrived', 'docked'],
            [p.completedAt, 'completed', 'docked', 'completed'],
            [p.departedAt, 'departed', 'completed', 'completed'],
          ];
        for (const [at, kind, from, to] of steps) {
          if (at == null) continue;
          // writeHistory stamps its row with the clock: give it the step's past time.
          await writeHistory({ clock: { now: () => at }, changes }, trx, {
            appointment: { id: p.id, yardId: s.yardId },
            kind,
            from,
            to,
            actor: { id: null, kind: 'system' },
            reason: kind === 'cancelled' ? 'The carrier moved the load to next week' : null,
          });
        }
      }
    });
}

function arrivalOfOutcome(o: Outcome): 'early' | 'on_time' | 'late' {
  return o === 'early' ? 'early' : o === 'late' ? 'late' : 'on_time';
}

/**
 * The check-ins name their appointment at the site (movement.appointmentId, as a check-in with an
 * appointment code does), once the appointments have reached it.
 */
export function movementLinksWriter(site: YardApp): (plans: PastAppointment[]) => Promise<void> {
  const { kysely, changes } = site.core;
  return (plans) =>
    kysely.transaction().execute(async (trx) => {
      for (const p of plans) {
        if (p.inMovementId) await changes.update(trx, 'movement', p.inMovementId, { appointmentId: p.id });
      }
    });
}

/**
 * Later today and tomorrow: booked through the booking API like the office would (first free
 * times of each load type, a few hours apart), so the gate house's Expected list has trucks to come.
 */
export async function bookUpcoming(api: Api, s: Scheduling, now: number): Promise<number> {
  const today = DateTime.fromMillis(now, { zone: s.timeZone });
  let booked = 0;
  for (const date of [today.toISODate(), today.plus({ days: 1 }).toISODate()]) {
    for (const [i, lt] of s.loadTypes.entries()) {
      const answer = await api(
        'GET',
        `/api/appointment/availability?yardId=${s.yardId}&loadTypeId=${lt.id}&date=${date}`,
      );
      const slots = answer.slots as Array<{ startAt: string }>;
      for (let k = 0; k < 2 && k * 6 + i * 2 < slots.length; k++) {
        const slot = slots[k * 6 + i * 2] as { startAt: string };
        const carrier = s.carriers[(booked + i) % s.carriers.length] as { id: string; scac: string };
        await api('POST', '/api/appointment', {
          yardId: s.yardId,
          loadTypeId: lt.id,
          startAt: slot.startAt,
          carrierId: carrier.id,
          refs: [`PO-${49_000 + booked}`, `BOL-${77_000 + booked}`],
          trailerNumber: `${carrier.scac}${6500 + booked}`,
          truckPlate: `TX${7600 + booked}`,
          driverName: DRIVERS[(booked + 3) % DRIVERS.length],
          driverPhone: '+12145550177',
        });
        booked++;
      }
    }
  }
  return booked;
}

/** A standalone edge books and records arrivals itself: everything through its own API and capture. */
export async function seedAppointments(
  api: Api,
  site: YardApp,
  master: MasterData,
  progress: (step: string) => void,
): Promise<void> {
  const s = await seedScheduling(api, master, progress);
  const plans = planAppointments(s, Date.now());
  const movements = await recordGateMovements(api, s, plans);
  await pastAppointmentsWriter(site, s)(plans);
  await movementLinksWriter(site)(plans);
  const upcoming = await bookUpcoming(api, s, Date.now());
  progress(
    `${plans.length} appointments of the past week and today (${movements} gate movements), ${upcoming} booked ahead`,
  );
}
