import { expect } from 'vitest';
import { seed } from '../../helpers/builders.js';
import type { Client } from '../../helpers/http.js';

/**
 * A yard that takes appointments, for the appointment suites: America/Chicago, open Monday to
 * Friday 06:00-18:00, 15-minute grid, lead time 2 hours to 30 days; doors named so that natural
 * order differs from text order ("Door 2" before "Door 10"); a 60-minute load type for every door
 * and one allowed only at Door 10; a carrier. Times in the tests are yard-local wall clock.
 */
export async function bookableYard(admin: Client, opts: { capacity?: number; doors?: number } = {}) {
  const s = seed(admin);
  const yard = await s.yard({ timeZone: 'America/Chicago' });
  const names = opts.doors === 1 ? ['Door 2'] : ['Door 10', 'Door 2'];
  const doors: Record<string, string> = {};
  for (const name of names) {
    doors[name] = (await s.location(yard.id, { kind: 'door', name, capacity: opts.capacity ?? 1 })).id;
  }
  const weekdays = Object.fromEntries(
    ['1', '2', '3', '4', '5'].map((d) => [d, [{ from: '06:00', to: '18:00' }]]),
  );
  const config = await admin.put(`/api/appointment/config/${yard.id}`, {
    enabled: true,
    openHours: weekdays,
  });
  expect(config.status, config.text).toBe(200);
  const live = await admin.post('/api/appointment/load-type', {
    yardId: yard.id,
    name: 'Live unload',
    durationMinutes: 60,
  });
  expect(live.status, live.text).toBe(201);
  const onlyDoor10 = doors['Door 10']
    ? await admin.post('/api/appointment/load-type', {
        yardId: yard.id,
        name: 'Reefer',
        durationMinutes: 30,
        doorIds: [doors['Door 10']],
      })
    : undefined;
  const carrier = await s.carrier();
  return {
    yardId: yard.id as string,
    doors,
    loadTypeId: live.body.id as string,
    reeferId: onlyDoor10?.body.id as string | undefined,
    carrierId: carrier.id as string,
  };
}

/** Monday 2026-03-02 06:00 in Chicago (CST, UTC-6): "now" for the suites (ManualClock). */
export const NOW = '2026-03-02T12:00:00Z';
