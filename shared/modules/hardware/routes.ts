import { STAFF } from '../../auth/principal.js';
import { page } from '../../http/common-schemas.js';
import type { RouteRegistrar } from '../../http/routes.js';
import {
  ActuateBody,
  ActuationListQuery,
  GateActuationOut,
  GateIdParams,
  HardwareStatusOut,
} from './schema.js';
import type { HardwareService } from './service.js';

const TAG = 'Hardware';

export function registerHardwareRoutes(r: RouteRegistrar, { hardware }: { hardware: HardwareService }): void {
  r.add({
    method: 'post',
    path: '/api/hardware/gate/{gateId}/actuate',
    tag: TAG,
    summary: 'Actuate a gate: one pulse of its relay; every request is audited, refusals and faults included',
    description:
      'Answers once the relay is energised (durationMs null); the pulse ends in the background and the live ' +
      'event `gate.released` brings the completed record (result fault if the relay could not be de-energised). ' +
      '409 `gate-busy` while another actuation of the gate runs (until its relay is de-energised), 409 `no-relay` for a manual gate, ' +
      '429 `rate-limited` above setting `gate.maxActuationsPerMinute` pulses per gate and minute, ' +
      '503 `hardware-fault` when the relay driver fails. Each of these also writes a gate actuation record. ' +
      "At the cloud the gate's edge pulses it and its answer (record or problem) is returned as is; " +
      '504 `site-offline` when the edge did not answer in time (the gate will then not open later).',
    access: ['admin', 'gate'],
    params: GateIdParams,
    body: ActuateBody,
    response: { schema: GateActuationOut, description: 'The actuation record (result ok)' },
    errors: [404, 409, 429, 503, 504],
    handler: async ({ params, body, principal, res }) => {
      // A gate outside the caller's yards answers 404 like one that does not exist: ids reveal nothing.
      const gate = await hardware.gateRow(params.gateId, principal);
      res.locals.yardId = gate.yardId;
      return hardware.actuateFor(gate, principal, body.reason);
    },
  });

  r.add({
    method: 'get',
    path: '/api/hardware/gate/{gateId}/actuations',
    tag: TAG,
    summary: 'Actuation audit log of a gate, newest first',
    access: STAFF,
    params: GateIdParams,
    query: ActuationListQuery,
    response: { schema: page(GateActuationOut) },
    errors: [404],
    handler: ({ params, query, principal }) => hardware.list(params.gateId, principal, query),
  });

  r.add({
    method: 'get',
    path: '/api/hardware/status',
    tag: TAG,
    summary: "Each gate driver's state (ok, fault, simulated) and every gate with a relay",
    description:
      'At the cloud: no drivers or serial ports (those are at the sites); every gate with its last synced actuation.',
    access: STAFF,
    response: { schema: HardwareStatusOut },
    handler: ({ principal }) => hardware.status(principal),
  });
}
