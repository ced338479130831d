/**
 * The one home of each closed set of values the product stores or answers with. The database
 * types (db/tables.ts), the zod schemas of the API (each module's schema.ts) and the code import
 * them from here; the migrations' CHECK constraints hold the same lists (the schema test compares
 * the columns, a new value needs a migration). Order is the order the API documents.
 */

export const TRAILER_TYPES = [
  'dry_van',
  'reefer',
  'flatbed',
  'container',
  'chassis',
  'tanker',
  'other',
] as const;
export type TrailerType = (typeof TRAILER_TYPES)[number];

export const LOAD_STATUSES = ['empty', 'loaded', 'unknown'] as const;
export type LoadStatus = (typeof LOAD_STATUSES)[number];

/** "staff" in the API: every role but driver. */
export const STAFF_ROLES = ['admin', 'dispatcher', 'gate', 'billing', 'viewer'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];
/**
 * A carrier user (docs/api.md "Roles and access"): bound to one carrier, created at the cloud, never
 * synced to sites; it sees its own carrier's bookings, passes and invoices and nothing else.
 */
export const ROLES = [...STAFF_ROLES, 'driver', 'carrier'] as const;
export type Role = (typeof ROLES)[number];
/** The roles of a user login (a driver signs in with its code and PIN instead). */
export const USER_ROLES = [...STAFF_ROLES, 'carrier'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const TASK_STATUSES = ['QUEUED', 'ASSIGNED', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TASK_TYPES = ['move', 'pull_to_door', 'return_to_spot', 'shunt', 'inspect', 'other'] as const;
export type TaskType = (typeof TASK_TYPES)[number];
/**
 * Task types that relocate a trailer: completing one puts the trailer at the task's destination
 * (tasks/transition.ts), and each completed one is a billed move (docs/domain.md "Billing").
 */
export const RELOCATING_TASK_TYPES: readonly TaskType[] = ['move', 'pull_to_door', 'return_to_spot', 'shunt'];

/** Status of a carrier and of a driver: a blocked one is refused at the gate. */
export const PARTY_STATUSES = ['active', 'blocked'] as const;
export type PartyStatus = (typeof PARTY_STATUSES)[number];

/** What a gate relay pulse came to. */
export const ACTUATION_RESULTS = ['ok', 'fault', 'refused'] as const;
export type ActuationResult = (typeof ACTUATION_RESULTS)[number];

/** State of a gate's relay driver. */
export const GATE_DRIVER_STATES = ['ok', 'fault', 'opening', 'simulated'] as const;
export type GateDriverState = (typeof GATE_DRIVER_STATES)[number];

/** Where a camera comes from: found on the site's network (ONVIF) or a provider's cloud. */
export const CAMERA_SOURCES = ['onvif', 'provider'] as const;
export type CameraSource = (typeof CAMERA_SOURCES)[number];

/** A gate movement's direction. */
export const DIRECTIONS = ['in', 'out'] as const;
export type Direction = (typeof DIRECTIONS)[number];
