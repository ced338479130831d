import type { AppDatabase } from '../../db/database.js';
import { type SqlWork, sqlRows, sqlRun, statement } from '../../db/sql-work.js';
import { newId } from '../../ids.js';
import {
  type AnyRowObserver,
  type ObservedRow,
  type RowObservers,
  type RowWrite,
  workObserver,
} from '../../sync/row-observers.js';

/**
 * The visit rule (docs/domain.md "Gate movements and visits"): a check-in opens a visit, a forced check-in (warning
 * `already-in-yard`) first closes the unit's old one (it left unrecorded), a check-out closes the
 * unit's open visits. Visits are derived rows, not synced: each side derives them from the
 * movements it stores, in the movement's transaction, whether the movement was recorded here
 * (record.ts through ChangeCapture) or applied by sync, so both paths run this one rule
 * (test/integration/movements/visit-rule.test.ts). Observers of visits (the dashboard's rollups)
 * are told of each visit opened or closed.
 */
export function visitsOfMovements(db: AppDatabase, observers: RowObservers): AnyRowObserver {
  return workObserver(db, { tables: MOVEMENT, writes: VISIT }, (write) => movementWritten(write, observers));
}

const MOVEMENT: ReadonlySet<string> = new Set(['movement']);
const VISIT: ReadonlySet<string> = new Set(['visit']);

/**
 * A movement is immutable: only its insert opens or closes visits. The visits' own observers (the
 * dashboard's rollups) get the movement write's counter sums, when its writer keeps them (the sync
 * applier: one summed statement per apply instead of one per visit).
 */
function* movementWritten({ before, after, counters }: RowWrite, observers: RowObservers): SqlWork<void> {
  if (before || !after) return;
  const at = Number(after.at);
  const trailerId = typeof after.trailerId === 'string' ? after.trailerId : null;
  const truckId = typeof after.truckId === 'string' ? after.truckId : null;
  if (after.direction !== 'in') {
    if (trailerId) yield* closeVisits(observers, counters, 'trailer', trailerId, String(after.id), at);
    if (truckId) yield* closeVisits(observers, counters, 'truck', truckId, String(after.id), at);
    return;
  }
  if (warningsOf(after).some((w) => w.startsWith('already-in-yard'))) {
    if (trailerId) yield* closeVisits(observers, counters, 'trailer', trailerId, null, at);
    if (truckId) yield* closeVisits(observers, counters, 'truck', truckId, null, at);
  }
  const visit: ObservedRow = {
    id: newId(),
    yardId: after.yardId,
    unitKind: trailerId ? 'trailer' : 'truck',
    trailerId,
    truckId,
    // The movement's carrier (for a unit new to the system, the one given with it): billing charges the visit to it.
    carrierId: after.carrierId ?? null,
    inMovementId: after.id,
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
  yield* observers.work('visit', undefined, visit, undefined, counters);
}

/** Closes the unit's open visits (a trailer's, or a truck's own truck visits). */
function* closeVisits(
  observers: RowObservers,
  counters: RowWrite['counters'],
  kind: 'trailer' | 'truck',
  unitId: string,
  outMovementId: string | null,
  at: number,
): SqlWork<void> {
  const closed = yield* sqlRows(VISIT_CLOSE[kind], [outMovementId, at, unitId]);
  for (const raw of closed) {
    const after = visitOf(raw);
    yield* observers.work(
      'visit',
      { ...after, outMovementId: null, outAt: null },
      after,
      undefined,
      counters,
    );
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

/** A visit row as the database returns it (column names as stored), with the field names observers see. */
function visitOf(raw: Record<string, unknown>): ObservedRow {
  return {
    id: raw.id,
    yardId: raw.yard_id,
    unitKind: raw.unit_kind,
    trailerId: raw.trailer_id,
    truckId: raw.truck_id,
    carrierId: raw.carrier_id,
    inMovementId: raw.in_movement_id,
    outMovementId: raw.out_movement_id,
    inAt: raw.in_at,
    outAt: raw.out_at,
  };
}

function warningsOf(movement: ObservedRow): string[] {
  if (typeof movement.warnings !== 'string') return [];
  try {
    const parsed = JSON.parse(movement.warnings) as unknown;
    return Array.isArray(parsed) ? parsed.filter((w): w is string => typeof w === 'string') : [];
  } catch {
    return [];
  }
}
