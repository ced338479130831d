import type { Clock } from '../clock.js';
import { type SqlWork, sqlRows, sqlRun, statement } from '../db/sql-work.js';
import { newId } from '../ids.js';
import type { RowObservers } from './row-observers.js';
import { type Fields, toCamel } from './row-sql.js';

/**
 * Local state that the modules write beside a synced row and that does not sync itself; the
 * applier keeps it up to date in the same transaction as the row, the way the module would have:
 * - visits (derived read model) from gate movements, as shared/modules/movements/record.ts does;
 * - sign-outs: a user disabled or given a new password, role or yard scope, and a driver blocked or
 *   given a new PIN or driver code, lose their open sessions (auth tokens are local to each side);
 * - a deleted yard task takes its task events with it (yard-task delete in tasks/edits.ts), also
 *   the ones the deleting side never saw.
 */
export class DerivedState {
  constructor(
    private readonly clock: Clock,
    /** Told of each visit opened or closed, like a visit written by the movements module. */
    private readonly observers: RowObservers,
  ) {}

  /** A movement row was newly stored: open or close visits like recordMovement. */
  *movementInserted(m: Fields): SqlWork<void> {
    const at = m.at as number;
    const trailerId = typeof m.trailerId === 'string' ? m.trailerId : null;
    const truckId = typeof m.truckId === 'string' ? m.truckId : null;
    if (m.direction === 'in') {
      // A forced check-in ends the unit's previous stay (it left unrecorded).
      if (warningsOf(m).some((w) => w.startsWith('already-in-yard'))) {
        if (trailerId) yield* this.closeVisits('trailer', trailerId, null, at);
        if (truckId) yield* this.closeVisits('truck', truckId, null, at);
      }
      const visit: Fields = {
        id: newId(),
        yardId: m.yardId,
        unitKind: trailerId ? 'trailer' : 'truck',
        trailerId,
        truckId,
        carrierId: m.carrierId ?? null,
        inMovementId: m.id,
        outMovementId: null,
        inAt: at,
        outAt: null,
      };
      yield* sqlRun(VISIT_OPEN, [
        visit.id,
        visit.yardId,
        visit.unitKind,
        visit.trailerId,
        visit.truckId,
        visit.carrierId,
        visit.inMovementId,
        visit.inAt,
      ]);
      yield* this.observers.work('visit', undefined, visit);
    } else {
      if (trailerId) yield* this.closeVisits('trailer', trailerId, m.id as string, at);
      if (truckId) yield* this.closeVisits('truck', truckId, m.id as string, at);
    }
  }

  /** Returns whether the user's sessions were ended (the caller drops cached principals after commit). */
  *userChanged(before: Fields | undefined, after: Fields): SqlWork<boolean> {
    if (!before) return false;
    const signOut =
      (after.disabled && !before.disabled) ||
      before.passwordHash !== after.passwordHash ||
      before.role !== after.role ||
      before.yardIds !== after.yardIds;
    if (signOut) yield* this.revokeTokens('user', String(after.id));
    return Boolean(signOut);
  }

  *driverChanged(before: Fields | undefined, after: Fields): SqlWork<boolean> {
    if (!before) return false;
    const signOut =
      (after.status === 'blocked' && before.status !== 'blocked') ||
      before.pinHash !== after.pinHash ||
      before.driverCode !== after.driverCode;
    if (signOut) yield* this.revokeTokens('driver', String(after.id));
    return signOut;
  }

  /** Before a yard task is deleted: its events go too (they reference it). */
  *taskDeleting(taskId: string): SqlWork<number> {
    return yield* sqlRun(TASK_EVENTS_DELETED, [taskId]);
  }

  private *closeVisits(
    kind: 'trailer' | 'truck',
    unitId: string,
    outMovementId: string | null,
    at: number,
  ): SqlWork<void> {
    const closed = yield* sqlRows(VISIT_CLOSE[kind], [outMovementId, at, unitId]);
    for (const raw of closed) {
      const after = Object.fromEntries(Object.entries(raw).map(([k, v]) => [toCamel(k), v]));
      yield* this.observers.work('visit', { ...after, outMovementId: null, outAt: null }, after);
    }
  }

  private *revokeTokens(kind: 'user' | 'driver', id: string): SqlWork<void> {
    yield* sqlRun(TOKENS_REVOKED, [this.clock.now(), kind, id]);
  }
}

const VISIT_OPEN = statement(
  'visit|open',
  'changes',
  'INSERT INTO visit (id, yard_id, unit_kind, trailer_id, truck_id, carrier_id, in_movement_id, in_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
);

const VISIT_CLOSE = {
  trailer: closeVisitsOf('trailer', 'trailer_id'),
  truck: closeVisitsOf('truck', 'truck_id'),
};

function closeVisitsOf(kind: 'trailer' | 'truck', column: string) {
  return statement(
    `visit|close|${kind}`,
    'rows',
    `UPDATE visit SET out_movement_id = ?, out_at = ? WHERE out_at IS NULL AND ${column} = ? AND unit_kind = '${kind}' RETURNING *`,
  );
}

const TASK_EVENTS_DELETED = statement(
  'task_event|by-task',
  'changes',
  'DELETE FROM task_event WHERE task_id = ?',
);

const TOKENS_REVOKED = statement(
  'auth_token|revoke',
  'changes',
  'UPDATE auth_token SET revoked_at = ? WHERE principal_kind = ? AND principal_id = ? AND revoked_at IS NULL',
);

function warningsOf(m: Fields): string[] {
  if (typeof m.warnings !== 'string') return [];
  try {
    const parsed = JSON.parse(m.warnings) as unknown;
    return Array.isArray(parsed) ? parsed.filter((w): w is string => typeof w === 'string') : [];
  } catch {
    return [];
  }
}
