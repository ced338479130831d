import { Id, IdParams } from '../../http/common-schemas.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import { z } from '../../http/zod.js';
import type { GateAppointmentService } from './gate-service.js';
import { AppointmentOut, AppointmentStatusChange } from './schema.js';

const TAG = 'Appointments';

const CodeParams = z.object({
  code: z.string().trim().min(1).max(40).openapi({ description: 'as typed or scanned', example: 'K7M4QX2P' }),
});
const ByCodeQuery = z.object({
  yardId: Id.optional().openapi({ description: "one of the caller's yards; default all of them" }),
});

/**
 * The gate side of appointments (docs/api.md "Appointments"): served everywhere (the cloud, a linked
 * edge also offline, a standalone edge), since they change only the site's arrival fields.
 */
export function registerGateAppointmentRoutes(
  r: RouteRegistrar,
  { gateAppointments }: { gateAppointments: GateAppointmentService },
): void {
  r.add({
    method: 'post',
    path: '/api/appointment/{id}/status',
    tag: TAG,
    summary: 'Mark an appointment docked or completed by hand, or undo a no-show',
    description:
      '`to: docked` once it has arrived, `to: completed` once it has arrived or docked, `to: scheduled` ' +
      'to undo a no-show; the time is now and the change is kept in its history with the reason. ' +
      'Docked, completed and departed also follow from the yard by themselves (a check-in or a move to a ' +
      'door, leaving the door or the yard). 409 `invalid-transition` from any other status; 404 outside ' +
      "the caller's yards.",
    access: ['admin', 'dispatcher', 'gate'],
    params: IdParams,
    body: AppointmentStatusChange,
    response: { schema: AppointmentOut },
    errors: [404, 409],
    handler: async ({ params, body, principal, res }) => {
      const out = await gateAppointments.changeStatus(principal, params.id, body);
      res.setHeader('ETag', etagOf(out.version));
      return out;
    },
  });

  r.add({
    method: 'get',
    path: '/api/appointment/by-code/{code}',
    tag: TAG,
    summary: "Today's appointment with this code (the gate's code field)",
    description:
      "Among the caller's yards (or `yardId`), the appointment whose start falls on the yard's today " +
      'and whose code this is; upper or lower case, spaces and dashes ignored. Any status (a cancelled ' +
      'one shows as cancelled). 404 when none.',
    access: ['admin', 'dispatcher', 'gate'],
    params: CodeParams,
    query: ByCodeQuery,
    response: { schema: AppointmentOut },
    errors: [404],
    handler: async ({ params, query, principal, res }) => {
      const out = await gateAppointments.byCode(principal, params.code, query.yardId);
      res.setHeader('ETag', etagOf(out.version));
      return out;
    },
  });
}
