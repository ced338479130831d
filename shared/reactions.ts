import type { EventBus } from './bus.js';
import type { AppDatabase } from './db/database.js';
import type { SqlWork } from './db/sql-work.js';
import type { Logger } from './log.js';
import type { AppointmentService } from './modules/appointments/service.js';
import type { AuthService } from './modules/auth/service.js';
import type { TaskService } from './modules/tasks/service.js';
import { type AnyRowObserver, type RowObservers, type RowWrite, workObserver } from './sync/row-observers.js';

/**
 * What the domain does about facts the sync engine announces (events.ts, InProcessEvents). The sync
 * engine knows no module; the modules know no sync engine; this is the one place that joins them.
 * Handlers run right after the apply's commit, as the applier's own after-commit steps did.
 */
export function wireSyncReactions(deps: {
  bus: EventBus;
  log: Logger;
  auth: Pick<AuthService, 'revokeSessionsOf'>;
  tasks: Pick<TaskService, 'dispatch'>;
  appointments: Pick<AppointmentService, 'view' | 'publishChanged'>;
  /** Where the sync applier reports the rows it writes (ChangeCapture's observers). */
  observers: RowObservers;
  db: AppDatabase;
  /** Auto-dispatch runs where the drivers are: at an edge (decided once, at start). */
  dispatchQueuedTasks: boolean;
}): void {
  const { bus, log, auth, tasks, appointments } = deps;
  deps.observers.add(appointmentsApplied(deps.db));
  // An appointment changed at a peer (the gate's arrival at a site, the edge's no-show sweep, a
  // booking at the cloud): its live event here, as a local writer publishes it, so a carrier's
  // portal at the cloud and a gate house at the site follow it (docs/api.md "Live events").
  bus.on('sync.appointment-applied', ({ data: { id } }) => {
    appointments.view(id).then(
      (appointment) => appointments.publishChanged(appointment),
      (err: unknown) => log.error({ err, id }, 'publishing an applied appointment change failed'),
    );
  });
  // Their tokens were revoked in the apply's transaction; this also drops principals cached in
  // memory and ends their open event streams.
  bus.on('sync.signed-out', ({ data: { kind, id } }) => {
    auth.revokeSessionsOf(kind, id).catch((err: unknown) => {
      log.error({ err, kind, id }, 'signing out after a synced change failed');
    });
  });
  if (deps.dispatchQueuedTasks) {
    bus.on('sync.tasks-queued', ({ data: { yardId } }) => {
      tasks.dispatch(yardId).catch((err: unknown) => {
        log.error({ err, yardId }, 'auto-dispatch after applying synced tasks failed');
      });
    });
  }
}

/**
 * Announces each appointment row the sync applier writes, for after its commit (a local writer has
 * no `announce`: its service publishes itself).
 */
function appointmentsApplied(db: AppDatabase): AnyRowObserver {
  return workObserver(db, { tables: APPOINTMENTS }, announceApplied);
}

const APPOINTMENTS: ReadonlySet<string> = new Set(['appointment']);

// biome-ignore lint/correctness/useYield: an observer's work; this one only announces.
function* announceApplied(write: RowWrite): SqlWork<void> {
  if (write.after)
    write.announce?.({ type: 'sync.appointment-applied', data: { id: String(write.after.id) } });
}
