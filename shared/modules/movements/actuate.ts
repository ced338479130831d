import type { Principal } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import type { ActuatedGate, ActuationAttempt, HardwareService } from '../hardware/service.js';
import type { MovementRow } from './repo.js';
import type { MovementCreatedT } from './schema.js';

export type GateActuationDeps = Pick<CoreParts, 'log'> & {
  hardware: Pick<HardwareService, 'attempt' | 'actuationsOfMovements'>;
};

export type MovementActuation = NonNullable<MovementCreatedT['actuation']>;

/**
 * The relay pulse of a gate movement (`actuate: true`), after the commit: the movement stands
 * whatever the gate does (busy, rate limit, fault), and the answer reports it. The hardware
 * module checks, pulses and writes the audit row (gate_actuation); it answers once the relay is
 * energised, so the check-in is confirmed while the gate opens (docs/domain.md "Gate actuation").
 */
export class GateActuation {
  constructor(private readonly deps: GateActuationDeps) {}

  async pulse(gate: ActuatedGate, movement: MovementRow, principal: Principal): Promise<MovementActuation> {
    let attempt: ActuationAttempt;
    try {
      attempt = await this.deps.hardware.attempt(gate, {
        requestedBy: principal.name,
        requestedVia: 'local',
        reason: `movement ${movement.direction}`,
        movementId: movement.id,
      });
    } catch (err) {
      this.deps.log.error({ err, movementId: movement.id }, 'gate actuation for a movement failed');
      return {
        id: null,
        result: 'fault',
        code: 'internal-error',
        error: 'The actuation could not be recorded.',
      };
    }
    return {
      id: attempt.actuation.id,
      result: attempt.actuation.result,
      code: attempt.error?.code ?? null,
      error: attempt.error ? attempt.error.detail : null,
    };
  }

  /** The actuation each movement asked for (movement id -> actuation id), from the gate's audit log. */
  of(movementIds: string[]): Promise<Map<string, string>> {
    return this.deps.hardware.actuationsOfMovements(movementIds);
  }
}
