import { toIso, toIsoOrNull } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import type { SettingsService } from '../settings/service.js';
import { type SessionRow, taskRepo } from './repo.js';
import type { DriverAvailabilityT } from './schema.js';
import {
  type AnnounceDeps,
  type Announcement,
  announce,
  announcement,
  SYSTEM_ACTOR,
  type TaskWriteDeps,
  writeTransition,
} from './writes.js';

export interface DriverState extends DriverAvailabilityT {
  /** When the driver last became free: the later of session start and last completion. */
  idleSince: number;
}

export type DispatchDeps = TaskWriteDeps &
  AnnounceDeps &
  Pick<CoreParts, 'kysely'> & {
    settings: Pick<SettingsService, 'get'>;
    /** Whether tasks are assigned here automatically: at an edge, not at the cloud (see dispatch()). */
    autoDispatch: boolean;
  };

/**
 * Availability (docs/domain.md "Availability and dispatch") and auto-dispatch. Availability is computed on every read, never
 * stored: a heartbeat timeout turns a driver offline without any write.
 */
export class Dispatcher {
  /** Per yard: the run in progress or queued. Runs of one yard never overlap (no double assignment). */
  private readonly chains = new Map<string, Promise<void>>();
  /** Per yard: a run queued and not started yet; later requests join it (it will see their change). */
  private readonly waiting = new Map<string, Promise<void>>();

  constructor(private readonly deps: DispatchDeps) {}

  dispatch(yardId: string): Promise<void> {
    // Not at the cloud: driver sessions and heartbeats live at the edge, so only the edge knows who
    // is available. A task queued at the cloud is assigned by its yard's edge when it arrives there
    // (the sync applier dispatches after applying); manual assignment at the cloud still works.
    if (!this.deps.autoDispatch) return Promise.resolve();
    const waiting = this.waiting.get(yardId);
    if (waiting) return waiting;
    const previous = this.chains.get(yardId) ?? Promise.resolve();
    const run: Promise<void> = previous
      .then(() => {
        this.waiting.delete(yardId);
        return this.assignWhilePossible(yardId);
      })
      .catch((err: unknown) => this.deps.log.error({ err, yardId }, 'task dispatch failed'))
      .finally(() => {
        if (this.chains.get(yardId) === run) this.chains.delete(yardId);
      });
    this.waiting.set(yardId, run);
    this.chains.set(yardId, run);
    return run;
  }

  /**
   * Drivers with availability: of one yard (open session there), of every yard (`onShift`: those
   * with an open session anywhere; the others are offline and in no yard), or every active yard
   * driver. `db` is the read pool for figures; a dispatch decision reads the main connection.
   */
  async availabilityOf(yardId?: string, o: { onShift?: boolean; db?: Kdb } = {}): Promise<DriverState[]> {
    const db = o.db ?? this.deps.kysely;
    const settings = this.deps.settings;
    const [timeoutSec, maxOpen, sessions] = await Promise.all([
      settings.get('tasks.driverTimeoutSec'),
      settings.get('tasks.maxAssignedPerDriver'),
      taskRepo.openSessions(db, yardId),
    ]);
    const sessionOf = new Map<string, SessionRow>();
    for (const s of sessions) if (!sessionOf.has(s.driverId)) sessionOf.set(s.driverId, s);
    const onShiftOnly = yardId !== undefined || o.onShift === true;
    const listed = await taskRepo.activeYardDrivers(db, onShiftOnly ? [...sessionOf.keys()] : undefined);
    const counts = await taskRepo.openTaskCounts(
      db,
      listed.map((d) => d.id),
    );
    const yardSessions = listed.map((d) => sessionOf.get(d.id)).filter((s) => s !== undefined);
    const since = Math.min(...yardSessions.map((s) => s.startedAt));
    const completions =
      yardId !== undefined && yardSessions.length > 0
        ? await taskRepo.lastCompletions(db, yardId, since)
        : new Map<string, number>();
    const now = this.deps.clock.now();
    return listed.map((d) => {
      const session = sessionOf.get(d.id) ?? null;
      const c = counts.get(d.id) ?? { open: 0, inProgress: 0 };
      const heardAt = session ? (session.lastCheckAt ?? session.startedAt) : 0;
      const availability =
        !session || now - heardAt > timeoutSec * 1000
          ? 'offline'
          : c.inProgress > 0 || c.open >= maxOpen
            ? 'busy'
            : 'available';
      return {
        driverId: d.id,
        name: `${d.firstName} ${d.lastName}`,
        driverCode: d.driverCode,
        availability,
        session: session && sessionBrief(session),
        openTasks: c.open,
        idleSince: Math.max(session?.startedAt ?? 0, completions.get(d.id) ?? 0),
      };
    });
  }

  /**
   * While the yard has a QUEUED task and an available driver: the most urgent, oldest task goes
   * to the driver idle longest (ties by id, so the outcome is deterministic).
   */
  private async assignWhilePossible(yardId: string): Promise<void> {
    if (!(await this.deps.settings.get('tasks.autoAssign'))) return;
    const maxOpen = await this.deps.settings.get('tasks.maxAssignedPerDriver');
    // Bounded: each round assigns one task or stops; a lost race re-reads and tries again.
    for (let round = 0; round < 1000; round++) {
      const task = await taskRepo.nextQueued(this.deps.kysely, yardId);
      if (!task) return;
      const [driver] = (await this.availabilityOf(yardId))
        .filter((d) => d.availability === 'available')
        .sort((a, b) => a.idleSince - b.idleSince || (a.driverId < b.driverId ? -1 : 1));
      if (!driver) return;
      const done = await this.assign(task.id, driver.driverId, yardId, maxOpen);
      if (done) announce(this.deps, done);
    }
  }

  /** Assigns if, inside the transaction, the task is still QUEUED and the driver still free. */
  private assign(taskId: string, driverId: string, yardId: string, maxOpen: number) {
    return this.deps.kysely.transaction().execute(async (trx): Promise<Announcement[] | undefined> => {
      const task = await taskRepo.byIdToWrite(trx, taskId);
      if (task?.status !== 'QUEUED') return undefined;
      const session = await taskRepo.openSessionOf(trx, driverId);
      const c = (await taskRepo.openTaskCounts(trx, [driverId])).get(driverId) ?? { open: 0, inProgress: 0 };
      if (session?.yardId !== yardId || c.inProgress > 0 || c.open >= maxOpen) return undefined;
      const written = await writeTransition(
        this.deps,
        trx,
        task,
        'ASSIGNED',
        { driverId, assignedAt: this.deps.clock.now() },
        { actor: SYSTEM_ACTOR, driverId, reason: 'auto-dispatch' },
      );
      return [announcement('task.assigned', written, driverId)];
    });
  }
}

function sessionBrief(s: SessionRow): NonNullable<DriverAvailabilityT['session']> {
  return {
    id: s.id,
    yardId: s.yardId,
    deviceId: s.deviceId,
    startedAt: toIso(s.startedAt),
    lastCheckAt: toIsoOrNull(s.lastCheckAt),
    lastLocation:
      s.lastLat !== null && s.lastLon !== null
        ? { lat: s.lastLat, lon: s.lastLon, at: toIsoOrNull(s.lastLocationAt) }
        : null,
  };
}
