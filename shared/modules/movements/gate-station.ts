import type { Principal } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import { NotFoundError } from '../../http/errors.js';
import type { CameraService, GateSnapshotResult } from '../cameras/service.js';
import type { DriverService } from '../drivers/service.js';
import type { ActuatedGate, ActuationAttempt, HardwareService } from '../hardware/service.js';
import type { SettingsService } from '../settings/service.js';
import type { DriverVerdict } from './record.js';
import type { MovementRow } from './repo.js';
import type { MovementCreatedT } from './schema.js';

export type GateStationDeps = Pick<CoreParts, 'log'> & {
  /** `gate.requireDriverCheck` and `camera.movementSnapshotTimeoutMs`. */
  settings: Pick<SettingsService, 'get'>;
  /** The admission rule (blocked driver or carrier, expired licence) is the drivers service's. */
  drivers: Pick<DriverService, 'checkById'>;
  cameras: Pick<CameraService, 'gateSnapshots'>;
  hardware: Pick<HardwareService, 'attempt' | 'actuationsOfMovements'>;
};

/**
 * What happens at the gate around a recorded movement, each through the module that owns it: the
 * driver check (drivers), the pictures (cameras), the relay pulse and its audit record (hardware).
 */
export class GateStation {
  constructor(private readonly deps: GateStationDeps) {}

  /** The driver check's verdict when the site requires it (undefined when not); 404 for an unknown driver. */
  async driverVerdict(driverId: string): Promise<DriverVerdict | undefined> {
    const required = await this.deps.settings.get('gate.requireDriverCheck');
    if (!required) return undefined;
    const check = await this.deps.drivers.checkById(driverId);
    if (!check.known) throw new NotFoundError('Driver', driverId);
    return { allowed: check.allowed, reasons: check.reasons };
  }

  /** A picture from each enabled camera of the gate, within the movement snapshot timeout. */
  async snapshots(gateId: string): Promise<GateSnapshotResult[]> {
    const timeoutMs = await this.deps.settings.get('camera.movementSnapshotTimeoutMs');
    return this.deps.cameras.gateSnapshots(gateId, timeoutMs);
  }

  /** After the commit: the movement stands whatever the gate does; the answer reports it. */
  async actuate(
    gate: ActuatedGate,
    movement: MovementRow,
    principal: Principal,
  ): Promise<NonNullable<MovementCreatedT['actuation']>> {
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
  actuationsOf(movementIds: string[]): Promise<Map<string, string>> {
    return this.deps.hardware.actuationsOfMovements(movementIds);
  }
}
