import type { Principal } from '../../shared/auth/principal.js';
import type { Core } from '../../shared/core.js';
import { sqliteOf } from '../../shared/db/database.js';
import { MovementCreate } from '../../shared/modules/movements/schema.js';

/**
 * A yard's offline work, written through the services exactly as the routes write it (so the change
 * log holds what ChangeCapture really writes). One round is about an hour of a busy yard:
 *  - gate: 40 trailers checked in and 40 checked out (trailer + movement rows);
 *  - tasks: each driver gets a move task, starts it and completes it (task, task events, trailer);
 *  - drivers' phones: 4 location batches of 20 pings per driver (pings + the session's last position).
 * About 1,100 change-log rows per round, 77 % locations, 15 % movements and trailers, 8 % tasks:
 * 150,000 rows is about a week.
 */

export interface WorkloadRefs {
  yardId: string;
  /** Parking spots of the yard (cloud master data). */
  locationIds: string[];
  /** Yard drivers (synced from the cloud). */
  driverIds: string[];
  /** A staff principal (the cloud's admin, synced down). */
  staff: Principal;
}

const CHECK_INS_PER_ROUND = 40;
const BATCHES_PER_DRIVER = 4;
const POINTS_PER_BATCH = 20;

export function driverPrincipal(driverId: string): Principal {
  return { kind: 'driver', id: driverId, driverId, name: 'bench driver', role: 'driver', yardIds: null };
}

/** Rows in the change log for the peer. */
export function changeLogRows(core: Core, peer: string): number {
  return Number(
    sqliteOf(core.db, 'the sync benchmark')
      .prepare('SELECT count(*) FROM change_log WHERE peer = ?')
      .pluck()
      .get(peer) ?? 0,
  );
}

/**
 * Writes rounds of work until the change log for `peer` holds at least `target` rows. Setup, not
 * measurement: fsync is off meanwhile (synchronous=FULL again at the end).
 */
export async function writeOfflineWork(
  core: Core,
  refs: WorkloadRefs,
  options: { peer: string; target: number; onProgress?: (rows: number) => void },
): Promise<{ rounds: number; rows: number }> {
  const { services } = core;
  sqliteOf(core.db, 'the sync benchmark').pragma('synchronous = OFF');
  try {
    for (const driverId of refs.driverIds) {
      const active = await services.driverApp.activeSession(driverId);
      if (!active) await services.driverApp.startSession(driverPrincipal(driverId), { yardId: refs.yardId });
    }
    // Trailers that stay in the yard and are moved around by the tasks.
    const resident: string[] = [];
    for (let k = 0; k < refs.driverIds.length; k++) {
      const created = await checkIn(core, refs, `RES${k}-${Date.now().toString(36)}`);
      resident.push(created);
    }
    let round = 0;
    let rows = changeLogRows(core, options.peer);
    while (rows < options.target) {
      await gateTraffic(core, refs, round);
      await taskWork(core, refs, resident, round);
      await locationPings(core, refs, round);
      round++;
      rows = changeLogRows(core, options.peer);
      options.onProgress?.(rows);
    }
    return { rounds: round, rows };
  } finally {
    sqliteOf(core.db, 'the sync benchmark').pragma('synchronous = FULL');
  }
}

async function checkIn(core: Core, refs: WorkloadRefs, number: string): Promise<string> {
  const created = await core.services.movements.create(
    MovementCreate.parse({ yardId: refs.yardId, direction: 'in', trailer: { number }, loadStatus: 'loaded' }),
    refs.staff,
  );
  const trailerId = created.createdUnits.trailerId ?? created.trailerId;
  if (!trailerId) throw new Error('check-in made no trailer');
  return trailerId;
}

/** Check-ins of new trailers, then check-outs of the same trailers; concurrent, so they group-commit. */
async function gateTraffic(core: Core, refs: WorkloadRefs, round: number): Promise<void> {
  const numbers = Array.from({ length: CHECK_INS_PER_ROUND }, (_, k) => `W${round}-${k}`);
  await Promise.all(numbers.map((number) => checkIn(core, refs, number)));
  await Promise.all(
    numbers.map((number) =>
      core.services.movements.create(
        MovementCreate.parse({
          yardId: refs.yardId,
          direction: 'out',
          trailer: { number },
          loadStatus: 'empty',
        }),
        refs.staff,
      ),
    ),
  );
}

/** Every driver: a move task assigned by the dispatcher, started and completed by the driver. */
async function taskWork(core: Core, refs: WorkloadRefs, resident: string[], round: number): Promise<void> {
  const { tasks } = core.services;
  await Promise.all(
    refs.driverIds.map(async (driverId, k) => {
      const task = await tasks.create(refs.staff, {
        yardId: refs.yardId,
        type: 'move',
        trailerId: resident[k] ?? null,
        toLocationId: refs.locationIds[(round + k) % refs.locationIds.length] ?? null,
        priority: 1,
        driverId,
      });
      if ('items' in task) throw new Error('one task asked, a batch answered');
      const driver = driverPrincipal(driverId);
      await tasks.transition(driver, task.id, 'IN_PROGRESS');
      await tasks.transition(driver, task.id, 'COMPLETED');
    }),
  );
}

async function locationPings(core: Core, refs: WorkloadRefs, round: number): Promise<void> {
  await Promise.all(
    refs.driverIds.map(async (driverId, k) => {
      const driver = driverPrincipal(driverId);
      for (let b = 0; b < BATCHES_PER_DRIVER; b++) {
        const now = core.clock.now();
        await core.services.driverApp.addLocations(driver, {
          points: Array.from({ length: POINTS_PER_BATCH }, (_, p) => ({
            at: now - (POINTS_PER_BATCH - p) * 100,
            lat: 38.7 + ((round * 7 + k * 3 + p) % 500) / 1e5,
            lon: -9.1 - ((round * 5 + b + p) % 500) / 1e5,
            accuracyM: 4 + (p % 6),
          })),
        });
      }
    }),
  );
}
