/**
 * The appointment as people and systems outside the yard see it (docs/domain.md "Carriers and
 * integrators"): the one projection behind the gate pass, the webhook `data.appointment` and the
 * email snapshot. It names things instead of giving internal ids (door and load type by name) and
 * leaves out what is the yard's own business (the override reason, who booked, the movement, the
 * notes, the driver's phone).
 *
 * Every instant is given with the yard's UTC offset (2026-03-08T08:00:00-05:00): a pass, a mail or
 * a carrier's system shows the yard's wall clock without knowing the zone's rules.
 *
 * The read joins the yard, door, load type and carrier tables of other modules: the allowed
 * read-model exception of DESIGN.md, because the outboxes take this snapshot inside the write's
 * transaction (a synced row's observers run in the applier's work and may not call a service).
 * One statement serves both ways of running it: `appointmentPublicWork` in SqlWork (row observers,
 * shared/sync/row-observers.ts) and `readAppointmentPublic` on any Kysely handle, a transaction
 * included.
 */
import { CompiledQuery } from 'kysely';
import type { Kdb } from '../../db/database.js';
import { sqlDialectOf } from '../../db/sql-helpers.js';
import { numberPlaceholders, type SqlWork, sqlRow, statement } from '../../db/sql-work.js';
import type { Arrival } from '../../db/tables.js';
import { Id, IsoDateTime } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';
import { AppointmentStatusSchema, ArrivalSchema } from './schema.js';
import { appointmentStatus } from './status.js';
import { yardClock } from './wall-clock.js';

export const AppointmentPublic = z
  .object({
    id: Id,
    code: z.string().openapi({ description: 'the code on the pass; the gate scanner types it' }),
    yard: z.object({ id: Id, name: z.string(), timeZone: z.string() }),
    doorName: z.string(),
    loadTypeName: z.string(),
    startAt: IsoDateTime.openapi({
      description: "with the yard's offset",
      example: '2026-03-03T08:00:00-06:00',
    }),
    endAt: IsoDateTime,
    carrier: z.object({ id: Id, name: z.string() }),
    refs: z.array(z.string()),
    trailerNumber: z.string().nullable(),
    truckPlate: z.string().nullable(),
    driverName: z.string().nullable(),
    status: AppointmentStatusSchema,
    arrival: ArrivalSchema.nullable(),
    arrivedAt: IsoDateTime.nullable(),
    dockedAt: IsoDateTime.nullable(),
    completedAt: IsoDateTime.nullable(),
    departedAt: IsoDateTime.nullable(),
    noShowAt: IsoDateTime.nullable(),
    cancelledAt: IsoDateTime.nullable(),
    cancelReason: z.string().nullable(),
    /** Grows with every change of the appointment row (the .ics SEQUENCE follows it). */
    version: z.number().int(),
  })
  .openapi('AppointmentPublic', {
    description:
      "An appointment as a carrier, its driver and its systems see it; every time with the yard's offset",
  });

export type AppointmentPublicT = z.infer<typeof AppointmentPublic>;

/** A row of PUBLIC_APPOINTMENT: the same names and values from SQLite and PostgreSQL. */
export interface AppointmentPublicRow {
  id: string;
  code: string;
  yardId: string;
  yardName: string;
  timeZone: string;
  doorName: string;
  loadTypeName: string;
  startAt: number;
  endAt: number;
  carrierId: string;
  carrierName: string;
  refs: string;
  trailerNumber: string | null;
  truckPlate: string | null;
  driverName: string | null;
  arrival: Arrival | null;
  arrivedAt: number | null;
  dockedAt: number | null;
  completedAt: number | null;
  departedAt: number | null;
  noShowAt: number | null;
  cancelledAt: number | null;
  cancelReason: string | null;
  version: number;
}

/**
 * One appointment with the names it shows. Quoted camelCase aliases, so the raw row (SqlWork and
 * `withoutPlugins`, no camelCase plugin) has the same field names on both databases.
 */
export const PUBLIC_APPOINTMENT = statement(
  'appointments.public-view',
  'row',
  `SELECT a.id AS "id", a.code AS "code", a.yard_id AS "yardId", y.name AS "yardName",
     y.time_zone AS "timeZone", d.name AS "doorName", lt.name AS "loadTypeName",
     a.start_at AS "startAt", a.end_at AS "endAt", a.carrier_id AS "carrierId", c.name AS "carrierName",
     a.refs AS "refs", a.trailer_number AS "trailerNumber", a.truck_plate AS "truckPlate",
     a.driver_name AS "driverName", a.arrival AS "arrival", a.arrived_at AS "arrivedAt",
     a.docked_at AS "dockedAt", a.completed_at AS "completedAt", a.departed_at AS "departedAt",
     a.no_show_at AS "noShowAt", a.cancelled_at AS "cancelledAt", a.cancel_reason AS "cancelReason",
     a.version AS "version"
   FROM appointment a
   JOIN yard y ON y.id = a.yard_id
   JOIN location d ON d.id = a.door_id
   JOIN load_type lt ON lt.id = a.load_type_id
   JOIN carrier c ON c.id = a.carrier_id
   WHERE a.id = ?`,
);

export function toAppointmentPublic(row: AppointmentPublicRow): AppointmentPublicT {
  const clock = yardClock(row.timeZone);
  const at = (t: number | null) => (t === null ? null : clock.iso(t));
  return {
    id: row.id,
    code: row.code,
    yard: { id: row.yardId, name: row.yardName, timeZone: row.timeZone },
    doorName: row.doorName,
    loadTypeName: row.loadTypeName,
    startAt: clock.iso(row.startAt),
    endAt: clock.iso(row.endAt),
    carrier: { id: row.carrierId, name: row.carrierName },
    refs: JSON.parse(row.refs) as string[],
    trailerNumber: row.trailerNumber,
    truckPlate: row.truckPlate,
    driverName: row.driverName,
    status: appointmentStatus(row),
    arrival: row.arrival,
    arrivedAt: at(row.arrivedAt),
    dockedAt: at(row.dockedAt),
    completedAt: at(row.completedAt),
    departedAt: at(row.departedAt),
    noShowAt: at(row.noShowAt),
    cancelledAt: at(row.cancelledAt),
    cancelReason: row.cancelReason,
    version: row.version,
  };
}

/** In SqlWork, inside the writer's transaction (row observers); null when there is no such appointment. */
export function* appointmentPublicWork(id: string): SqlWork<AppointmentPublicT | null> {
  const row = yield* sqlRow(PUBLIC_APPOINTMENT, [id]);
  return row ? toAppointmentPublic(row as unknown as AppointmentPublicRow) : null;
}

const textOf = {
  sqlite: PUBLIC_APPOINTMENT.text('sqlite'),
  postgres: numberPlaceholders(PUBLIC_APPOINTMENT.text('postgres')),
};

/** On a Kysely handle: the database, or a transaction (then it sees that transaction's writes). */
export async function readAppointmentPublic(db: Kdb, id: string): Promise<AppointmentPublicT | null> {
  const text = textOf[sqlDialectOf(db)];
  const { rows } = await db
    .withoutPlugins()
    .executeQuery<AppointmentPublicRow>(CompiledQuery.raw(text, [id]));
  const row = rows[0];
  return row ? toAppointmentPublic(row) : null;
}
