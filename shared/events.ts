import type { AppointmentOutT } from './modules/appointments/schema.js';
import type { DriverSessionOutT } from './modules/driver-app/schema.js';
import type { GateActuationOutT } from './modules/hardware/schema.js';
import type { MovementOutT } from './modules/movements/schema.js';
import type { SiteSyncStatusOutT } from './modules/sync/schema.js';
import type { TaskOutT } from './modules/tasks/schema.js';

/**
 * Every event of the in-process bus (shared/bus.ts), by name, with the shape of its `data`.
 * Publishers and subscribers are type-checked against this map, and GET /api/events streams the
 * live part of it: one list of what happens in a yard, for in-process reactions and web apps alike.
 */
export interface LiveEvents {
  'movement.created': MovementOutT;
  /**
   * A gate's relay pulse ended (an actuation is answered when its relay energises): the completed
   * actuation record, result fault when the relay could not be de-energised (docs/domain.md "Gate actuation").
   */
  'gate.released': GateActuationOutT;
  'task.created': TaskOutT;
  'task.assigned': TaskOutT;
  'task.unassigned': TaskOutT;
  'task.started': TaskOutT;
  'task.completed': TaskOutT;
  'task.cancelled': TaskOutT;
  'task.updated': TaskOutT;
  'task.deleted': TaskOutT;
  'driver.session.started': DriverSessionOutT;
  'driver.session.ended': DriverSessionOutT;
  'driver.last-check': { sessionId: string; battery: number; at: string };
  'settings.changed': { names: string[] };
  /** An appointment was booked, rescheduled, edited, cancelled or changed status (after commit). */
  'appointment.changed': AppointmentOutT;
  /**
   * Rows from a peer were applied (shared/sync/applier.ts): one event per touched yard, one without a
   * yard (org-wide records, watchers of every yard), one per driver whose tasks changed.
   */
  'sync.applied': { peer: string; yardIds?: string[]; entities: Record<string, number> };
  /**
   * A linked edge's link to the cloud changed state, or its queue depth changed (edge/sync/link-watch.ts,
   * throttled): `since` is when the state last changed (null: not since this process started).
   */
  'sync.link': { link: 'online' | 'offline' | 'never'; since: string | null; queued: number };
  /**
   * At the cloud: a site's status changed (link state, its queue, version, gates' states): the
   * site's row of GET /api/sync/status, for the dashboard's sites page.
   */
  'site.status': SiteSyncStatusOutT;
}

/**
 * Facts for reactions inside this process only: never streamed to clients nor kept for replay.
 * The sync engine announces what a synced change means; the owning module reacts (shared/reactions.ts).
 */
export interface InProcessEvents {
  /** A synced change (new password, block, disabled user) revoked this principal's tokens in the apply. */
  'sync.signed-out': { kind: 'user' | 'driver'; id: string };
  /** Applied rows left queued (unassigned) tasks in this yard. */
  'sync.tasks-queued': { yardId: string };
  /**
   * An appointment row from a peer was applied (an arrival, dock, completion or no-show made at a
   * site, or a booking made at the cloud): reactions.ts publishes its `appointment.changed`, which a
   * local writer publishes itself.
   */
  'sync.appointment-applied': { id: string };
}

export type YardEvents = LiveEvents & InProcessEvents;
export type EventType = keyof YardEvents;
export type LiveEventType = keyof LiveEvents;

/** Checked by the compiler: every in-process event is listed here, so none can leak into a stream. */
const IN_PROCESS: Record<keyof InProcessEvents, true> = {
  'sync.signed-out': true,
  'sync.tasks-queued': true,
  'sync.appointment-applied': true,
};

export function isLive(type: EventType): type is LiveEventType {
  return !Object.hasOwn(IN_PROCESS, type);
}

/**
 * Live events about the site as a whole rather than a yard: every staff member of this process
 * receives them, scoped or not (the same who may read GET /api/sync/status), drivers never.
 */
const SITE_WIDE: Partial<Record<LiveEventType, true>> = { 'sync.link': true, 'site.status': true };

export function isSiteWide(type: EventType): boolean {
  return Object.hasOwn(SITE_WIDE, type);
}

/**
 * An event of type K. `yardId`, `driverId` and `carrierId` let the SSE stream filter what each
 * principal may see (platform/event-stream.ts mayReceive).
 */
export interface YardEvent<K extends EventType = EventType> {
  type: K;
  yardId?: string | null;
  driverId?: string | null;
  /** The carrier the event is about: a carrier user receives only its own carrier's. */
  carrierId?: string | null;
  data: YardEvents[K];
}

/** Any event, as a union discriminated by `type` (narrow with `event.type === '...'`). */
export type AnyYardEvent = { [K in EventType]: YardEvent<K> }[EventType];

/**
 * An event as delivered: `seq` numbers the live events of this process (the SSE id is
 * `<boot>-<seq>`, EventBus.idOf; an in-process event carries the seq of the last live event before
 * it), `at` is when it was published.
 */
export type PublishedEvent<K extends EventType = EventType> = {
  [T in K]: YardEvent<T> & { seq: number; at: string };
}[K];
