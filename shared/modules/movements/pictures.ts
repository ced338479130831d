import { canSeeYard, type Principal } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import type { CameraService, GateSnapshotResult } from '../cameras/service.js';
import type { SettingsService } from '../settings/service.js';
import { MovementRepo } from './repo.js';
import type { MovementCreateT } from './schema.js';

export type GatePicturesDeps = Pick<CoreParts, 'kysely'> & {
  /** `camera.movementSnapshotTimeoutMs`. */
  settings: Pick<SettingsService, 'get'>;
  cameras: Pick<CameraService, 'gateSnapshots'>;
};

/**
 * The pictures of a gate movement (`snapshot: true`), taken after the checks and before the
 * movement is recorded: the vehicle is still at the barrier, and the pictures are stored as
 * attachments that the movement lists. A camera that fails or is slow delays the gate by at most
 * camera.movementSnapshotTimeoutMs and never stops it (its error is in the result).
 */
export class GatePictures {
  private readonly repo: MovementRepo;

  constructor(private readonly deps: GatePicturesDeps) {
    this.repo = new MovementRepo(deps.kysely);
  }

  async take(input: MovementCreateT, principal: Principal): Promise<GateSnapshotResult[]> {
    if (!input.snapshot || !input.gateId) return [];
    const gate = await this.repo.gate(input.gateId);
    if (!gate || !canSeeYard(principal, gate.yardId)) return []; // the record step answers the 404
    const timeoutMs = await this.deps.settings.get('camera.movementSnapshotTimeoutMs');
    return await this.deps.cameras.gateSnapshots(input.gateId, timeoutMs);
  }
}
