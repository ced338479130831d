import type { EventBus } from './bus.js';
import type { Logger } from './log.js';
import type { AuthService } from './modules/auth/service.js';
import type { TaskService } from './modules/tasks/service.js';

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
  /** Auto-dispatch runs where the drivers are: at an edge (decided once, at start). */
  dispatchQueuedTasks: boolean;
}): void {
  const { bus, log, auth, tasks } = deps;
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
