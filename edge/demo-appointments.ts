import { DateTime } from 'luxon';
import type { YardApp } from '../shared/app.js';
import { DRIVERS, planAppointments } from './demo-appointment-plan.js';
import {
  movementLinksWriter,
  pastAppointmentsWriter,
  recordGateMovements,
} from './demo-appointment-records.js';
import { type Api, type MasterData, type Scheduling, seedScheduling } from './demo-scheduling.js';

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
