import { DateTime } from 'luxon';
import type { BookingRules } from '../shared/modules/appointments/availability.js';

/**
 * The demo yard's scheduling setup (docs/domain.md "Appointments"), made through the HTTP API of
 * the place that books: two shifts that touch on weekdays, shorter weekends, a closed holiday,
 * three load types and Door 6 taking two trailers at once. What the rest of the demo's
 * appointments (edge/demo-appointments.ts) plan and book with.
 */

/** The demo's API client (demo-data.ts demoClient) and master data, as far as appointments need them. */
// biome-ignore lint/suspicious/noExplicitAny: loose JSON answers of our own API
export type Api = (method: string, path: string, body?: unknown) => Promise<any>;
export interface MasterData {
  yard: { id: string; timeZone: string };
  carriers: Array<{ id: string; scac: string }>;
}

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
