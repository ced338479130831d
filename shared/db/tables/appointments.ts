/** Dock appointments: a yard's scheduling config, load types, appointments and their history (migration 0016). */
import type { Generated } from 'kysely';
import type { Shared, Synced, Timestamps } from './columns.js';

export interface SchedulingConfigTable extends Synced, Timestamps {
  yardId: string;
  enabled: Generated<number>;
  /** JSON: ISO weekday ("1" = Monday) -> [{from: "HH:MM", to: "HH:MM"}], yard-local. */
  openHours: Generated<string>;
  /** JSON: ["YYYY-MM-DD"], yard-local dates. */
  closedDates: Generated<string>;
  slotMinutes: Generated<number>;
  leadTimeMinMinutes: Generated<number>;
  leadTimeMaxDays: Generated<number>;
  changeCutoffMinutes: Generated<number>;
  lateGraceMinutes: Generated<number>;
  noShowAfterMinutes: Generated<number>;
  freeTimeMinutes: Generated<number>;
}

export interface LoadTypeTable extends Synced, Timestamps {
  id: string;
  yardId: string;
  name: string;
  direction: 'inbound' | 'outbound' | 'both';
  durationMinutes: number;
  /** JSON array of door location ids; empty = every door of the yard. */
  doorIds: Generated<string>;
  carrierVisible: Generated<number>;
}

export type Arrival = 'early' | 'on_time' | 'late';

export interface AppointmentTable extends Synced, Timestamps, Shared {
  id: string;
  yardId: string;
  doorId: string;
  loadTypeId: string;
  startAt: number;
  endAt: number;
  carrierId: string;
  /** JSON array of PO/BOL numbers (up to 10). */
  refs: Generated<string>;
  trailerNumber: string | null;
  truckPlate: string | null;
  driverName: string | null;
  driverPhone: string | null;
  notes: string | null;
  code: string;
  overrideReason: string | null;
  createdBy: string | null;
  cancelledAt: number | null;
  cancelReason: string | null;
  // Arrival fields: written by the yard's site (docs/sync.md "Conflict rules").
  arrivedAt: number | null;
  arrival: Arrival | null;
  movementId: string | null;
  dockedAt: number | null;
  completedAt: number | null;
  departedAt: number | null;
  noShowAt: number | null;
}

export interface AppointmentEventTable extends Synced {
  id: string;
  appointmentId: string;
  yardId: string;
  at: number;
  /** booked, rescheduled, edited, cancelled, arrived, docked, completed, departed, no_show, no_show_undone */
  kind: string;
  fromStatus: string | null;
  toStatus: string | null;
  actorId: string | null;
  actorKind: 'user' | 'driver' | 'api-key' | 'system' | null;
  reason: string | null;
  /** JSON: what changed (a reschedule's old and new start and door, an override's reason). */
  detail: string | null;
  createdAt: number;
}
