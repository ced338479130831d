/**
 * An appointment's status follows from its times (docs/domain.md "Appointments"): there is no
 * status column, so the cloud's booking fields and the site's arrival fields can merge field by
 * field (docs/sync.md "Conflict rules") and the status always agrees with them.
 *
 * Precedence, highest first: what happened at the yard outranks a cancellation made elsewhere
 * meanwhile (a truck that docked was not sent away), a cancellation outranks an arrival (a truck
 * turned away after it arrived), and an arrival outranks a no-show (a no-show that comes late is
 * arrived, late).
 *
 * The SQL twin (APPOINTMENT_STATUS_SQL) is the same rule for filters in queries; a unit test runs
 * both over every combination of times.
 */
export const APPOINTMENT_STATUSES = [
  'scheduled',
  'arrived',
  'docked',
  'completed',
  'cancelled',
  'no_show',
] as const;
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];

export interface StatusTimes {
  cancelledAt: number | null;
  arrivedAt: number | null;
  dockedAt: number | null;
  completedAt: number | null;
  noShowAt: number | null;
}

export function appointmentStatus(a: StatusTimes): AppointmentStatus {
  if (a.completedAt != null) return 'completed';
  if (a.dockedAt != null) return 'docked';
  if (a.cancelledAt != null) return 'cancelled';
  if (a.arrivedAt != null) return 'arrived';
  if (a.noShowAt != null) return 'no_show';
  return 'scheduled';
}

/** Statuses that hold a door's capacity (docs/domain.md "Booking rules"). */
export const HOLDS_CAPACITY: ReadonlySet<AppointmentStatus> = new Set(['scheduled', 'arrived', 'docked']);

/** Final statuses: no transition leaves them (409 `invalid-transition`). */
export const FINAL: ReadonlySet<AppointmentStatus> = new Set(['completed', 'cancelled']);

/** The same rule as appointmentStatus, as an SQL expression over the appointment table (alias `a`). */
export const APPOINTMENT_STATUS_SQL = `CASE
  WHEN a.completed_at IS NOT NULL THEN 'completed'
  WHEN a.docked_at IS NOT NULL THEN 'docked'
  WHEN a.cancelled_at IS NOT NULL THEN 'cancelled'
  WHEN a.arrived_at IS NOT NULL THEN 'arrived'
  WHEN a.no_show_at IS NOT NULL THEN 'no_show'
  ELSE 'scheduled' END`;

/**
 * Appointments that hold capacity, as an SQL condition (alias `a`): HOLDS_CAPACITY over
 * appointmentStatus, written out as plain tests rather than over the CASE so that the database
 * reads it from the appointment_capacity index (migration 0020) and the first term matches that
 * partial index's own condition; a month of bookings costs a third of the time.
 * test/integration/appointments/status-sql.test.ts checks it against appointmentStatus for every
 * combination of times, on both databases.
 */
export const HOLDS_CAPACITY_SQL = `(a.completed_at IS NULL AND (a.docked_at IS NOT NULL OR (a.cancelled_at IS NULL AND (a.arrived_at IS NOT NULL OR a.no_show_at IS NULL))))`;
