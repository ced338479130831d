import type { Principal } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import { newId } from '../../ids.js';
import type { AppointmentStatus } from './status.js';

/** Who made a change: a principal, or the system (the no-show sweep, a yard event). */
export type Actor = Pick<Principal, 'id' | 'kind'> | { id: null; kind: 'system' };

export interface HistoryEntry {
  appointment: { id: string; yardId: string };
  /** booked, rescheduled, edited, cancelled, arrived, docked, completed, departed, no_show, no_show_undone */
  kind: string;
  from: AppointmentStatus | null;
  to: AppointmentStatus | null;
  actor: Actor;
  reason?: string | null | undefined;
  /** What changed (a reschedule's old and new times and door, an override). */
  detail?: Record<string, unknown> | null | undefined;
}

/**
 * The appointment_event row of one change, in the caller's transaction: the one way every writer
 * of an appointment (booking, the gate, the sweep) records its history (GET /api/appointment/{id}).
 */
export async function writeHistory(
  deps: Pick<CoreParts, 'clock' | 'changes'>,
  trx: Kdb,
  entry: HistoryEntry,
): Promise<void> {
  const now = deps.clock.now();
  await deps.changes.insert(trx, 'appointmentEvent', {
    id: newId(),
    appointmentId: entry.appointment.id,
    yardId: entry.appointment.yardId,
    at: now,
    kind: entry.kind,
    fromStatus: entry.from,
    toStatus: entry.to,
    actorId: entry.actor.id,
    actorKind: entry.actor.kind,
    reason: entry.reason ?? null,
    detail: entry.detail ? JSON.stringify(entry.detail) : null,
    createdAt: now,
  });
}
