/**
 * What a webhook says (docs/webhooks.md "Events"): the event of each appointment history row and
 * gate movement, and its body `{type, timestamp, data}`, built from rows inside the change's
 * transaction so a late delivery still describes the moment of the change.
 *
 * Reading the appointment (appointments/public-view.ts) and the movement's yard, trailer and truck
 * here is the read-model exception of DESIGN.md: the outbox is written in the writer's transaction,
 * also when the writer is the sync applier, where no service can be called.
 */
import { toIso } from '../../clock.js';
import { type SqlWork, sqlRow, statement } from '../../db/sql-work.js';
import type { ObservedRow } from '../../sync/row-observers.js';
import { type AppointmentPublicT, appointmentPublicWork } from '../appointments/public-view.js';
import { yardClock } from '../appointments/wall-clock.js';
import type { WebhookEventType } from './event-types.js';

/** One event for the outbox. */
export interface OutboxEvent {
  /** 'msg_' + the source row's id: the webhook-id header, the same on every retry and replay. */
  id: string;
  type: WebhookEventType;
  /** The stream it is ordered in: 'appointment:<id>', 'movement:<id>'. */
  resourceKey: string;
  yardId: string;
  carrierId: string | null;
  occurredAt: number;
  /** The exact body sent. */
  payload: string;
}

/** The webhook type of each appointment history kind (docs/webhooks.md "Events"). */
export const APPOINTMENT_EVENT_TYPES: Readonly<Record<string, WebhookEventType>> = {
  booked: 'appointment.created',
  rescheduled: 'appointment.changed',
  edited: 'appointment.changed',
  departed: 'appointment.changed',
  no_show_undone: 'appointment.changed',
  cancelled: 'appointment.cancelled',
  arrived: 'appointment.arrived',
  docked: 'appointment.docked',
  completed: 'appointment.completed',
  no_show: 'appointment.no_show',
};

export function body(type: WebhookEventType, occurredAt: number, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: toIso(occurredAt), data });
}

/**
 * The event of an appointment_event row, or null for a kind that has none or an appointment this
 * database does not hold (a history row that reached the cloud before its appointment).
 */
export function* appointmentEvent(row: ObservedRow): SqlWork<OutboxEvent | null> {
  const kind = String(row.kind);
  const type = APPOINTMENT_EVENT_TYPES[kind];
  if (!type) return null;
  const appointment = yield* appointmentPublicWork(String(row.appointmentId));
  if (!appointment) return null;
  const occurredAt = Number(row.at);
  return {
    id: `msg_${String(row.id)}`,
    type,
    resourceKey: `appointment:${appointment.id}`,
    yardId: appointment.yard.id,
    carrierId: appointment.carrier.id,
    occurredAt,
    payload: body(type, occurredAt, { appointment, change: changeOf(row, appointment) }),
  };
}

/**
 * What happened, in outsiders' words: the history kind, the status before and after, and for a
 * reschedule the old and new times (with the yard's offset). Actors, doors by id and override
 * reasons are the yard's own business and stay out.
 */
function changeOf(row: ObservedRow, appointment: AppointmentPublicT): Record<string, unknown> {
  const change: Record<string, unknown> = {
    kind: String(row.kind),
    fromStatus: row.fromStatus ?? null,
    toStatus: row.toStatus ?? null,
  };
  const detail = typeof row.detail === 'string' ? (JSON.parse(row.detail) as Record<string, unknown>) : null;
  if (row.kind === 'rescheduled' && detail) {
    const clock = yardClock(appointment.yard.timeZone);
    const times = (t: unknown) => {
      const { startAt, endAt } = (t ?? {}) as { startAt?: number; endAt?: number };
      return {
        startAt: typeof startAt === 'number' ? clock.iso(startAt) : null,
        endAt: typeof endAt === 'number' ? clock.iso(endAt) : null,
      };
    };
    change.from = times(detail.from);
    change.to = times(detail.to);
  }
  if (row.kind === 'edited' && detail && Array.isArray(detail.fields)) change.fields = detail.fields;
  return change;
}

const MOVEMENT_NAMES = statement(
  'webhooks.movement-names',
  'row',
  `SELECT y.time_zone AS "timeZone", t.number AS "trailerNumber", k.plate AS "truckPlate"
   FROM yard y
   LEFT JOIN trailer t ON t.id = ?
   LEFT JOIN truck k ON k.id = ?
   WHERE y.id = ?`,
);

/** The movement.created event of a gate movement: a check-in (arrived) or check-out (departed). */
export function* movementEvent(row: ObservedRow): SqlWork<OutboxEvent | null> {
  const yardId = String(row.yardId);
  const names = (yield* sqlRow(MOVEMENT_NAMES, [row.trailerId ?? null, row.truckId ?? null, yardId])) as
    | { timeZone: string; trailerNumber: string | null; truckPlate: string | null }
    | undefined;
  const occurredAt = Number(row.at);
  const id = String(row.id);
  const carrierId = (row.carrierId as string | null) ?? null;
  const movement = {
    id,
    yardId,
    direction: row.direction,
    kind: row.direction === 'in' ? 'arrived' : 'departed',
    at: names ? yardClock(names.timeZone).iso(occurredAt) : toIso(occurredAt),
    carrierId,
    trailerNumber: names?.trailerNumber ?? null,
    truckPlate: names?.truckPlate ?? null,
    appointmentId: (row.appointmentId as string | null) ?? null,
    correctsId: (row.correctsId as string | null) ?? null,
  };
  return {
    id: `msg_${id}`,
    type: 'movement.created',
    resourceKey: `movement:${id}`,
    yardId,
    carrierId,
    occurredAt,
    payload: body('movement.created', occurredAt, { movement }),
  };
}
