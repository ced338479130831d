import type { Principal } from '../../auth/principal.js';
import type { GateDriverStatus, SerialPortSeen } from '../../hardware.js';
import type { AppError } from '../../http/errors.js';
import type { GateRow } from './repo.js';
import type { GateActuationOutT } from './schema.js';

export interface ActuationRequest {
  requestedBy: string | null;
  requestedVia: 'local' | 'cloud';
  reason?: string | null | undefined;
  /** The gate movement that asked for this pulse. */
  movementId?: string | null | undefined;
  /**
   * Asked right before the relay pulses; an error refuses the pulse (audited). A cloud command uses
   * it to refuse once its deadline has passed (edge/sync/command-handler.ts).
   */
  guard?: () => AppError | undefined;
}

/** An audited actuation and, unless it pulsed, the error that explains why not. */
export interface ActuationAttempt {
  actuation: GateActuationOutT;
  error?: AppError;
}

/** A gate as actuation needs it: which relay, in which yard, named how in messages. */
export type ActuatedGate = Pick<GateRow, 'id' | 'yardId' | 'name' | 'relay'>;

/**
 * Where the gates' relays are, the part of the hardware module that differs by role (role-profile.ts
 * `relays`), plugged at start (shared/role-parts.ts): LocalRelays at an edge, ForwardToSite at the cloud.
 */
export interface GateRelays {
  /** Hands the relay bindings to the hardware (at start and after a gate write); never throws. */
  reconfigure(): Promise<void>;
  /**
   * A person's request to open a gate; a refusal or fault is thrown (after its audit record, if any).
   * Answers once the relay is energised: the pulse ends in the background (docs/domain.md "Gate actuation").
   */
  open(gate: ActuatedGate, principal: Principal, reason?: string): Promise<GateActuationOutT>;
  /** A pulse asked for by a movement or a cloud command; a refusal or fault is in the answer (as open()). */
  attempt(gate: ActuatedGate, request: ActuationRequest): Promise<ActuationAttempt>;
  /** The relay drivers and serial ports this process has (none where the relays are at the sites). */
  devices(): Promise<{ drivers: GateDriverStatus[]; serialPorts: SerialPortSeen[] }>;
  /** Whether a pulse of this gate is running now (only known where its relay is). */
  busy(gateId: string): boolean;
  /** Resolves once every pulse answered before its end has ended and its record is complete (at stop). */
  settled(): Promise<void>;
}
