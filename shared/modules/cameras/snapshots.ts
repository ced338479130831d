import type { Principal } from '../../auth/principal.js';
import { CameraError, type Snapshot } from '../../cameras/types.js';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import { AppError, ConflictError } from '../../http/errors.js';
import type { AttachmentService, Creator } from '../attachments/service.js';
import type { IntegrationService } from '../integrations/service.js';
import { cameraProblem } from './camera-errors.js';
import type { OnvifDevices } from './onvif-devices.js';
import type { CameraPicture, OnvifReach } from './onvif-reach.js';
import type { CameraRow } from './repo.js';

/** What a movement's cameras gave: an attachment per picture taken, the reason for each one missed. */
export interface GateSnapshotResult {
  cameraId: string;
  cameraName: string;
  attachmentId: string | null;
  error: string | null;
}

export type CameraSnapshotDeps = Pick<CoreParts, 'clock' | 'log'> & {
  onvif: OnvifDevices;
  onvifReach: OnvifReach;
  integrations: Pick<IntegrationService, 'snapshot' | 'timeoutMs'>;
  attachments: Pick<AttachmentService, 'storeBuffer'>;
};

/**
 * Pictures from yard cameras, taken now with a timeout: an ONVIF camera is called on the LAN (or
 * through its site's edge, onvif-reach.ts), a provider camera through its integration; a picture
 * kept is an attachment of its camera.
 */
export class CameraSnapshots {
  constructor(private readonly deps: CameraSnapshotDeps) {}

  /** A picture for an API caller; with store, also kept as an attachment made by the caller. */
  async forCaller(camera: CameraRow, principal: Principal, store: boolean): Promise<CameraPicture> {
    const takeHere = () => this.take(camera, principal, store);
    if (camera.source !== 'onvif') return takeHere();
    return this.deps.onvifReach.pictureFor(camera, principal, store, takeHere);
  }

  /** A picture taken here; with store, kept as an attachment made by `creator`. */
  async take(camera: CameraRow, creator: NonNullable<Creator>, store: boolean): Promise<CameraPicture> {
    if (!camera.enabled)
      throw new ConflictError('camera-disabled', `Camera ${camera.name} is disabled; enable it first.`);
    const snapshot = await this.call(camera, await this.deps.integrations.timeoutMs());
    if (!store) return { snapshot, attachmentId: null };
    const attachment = await this.deps.attachments.storeBuffer(
      snapshot.bytes,
      { filename: snapshotName(camera, this.deps.clock.now()), refType: 'camera', refId: camera.id },
      creator,
    );
    return { snapshot, attachmentId: attachment.id };
  }

  /**
   * One picture per camera given, all at once, each within timeoutMs, stored as attachments of its
   * camera. Never throws for a camera: a failure is reported in its result.
   */
  async forMovement(cameras: CameraRow[], timeoutMs: number): Promise<GateSnapshotResult[]> {
    return Promise.all(
      cameras.map(async (camera): Promise<GateSnapshotResult> => {
        const result = { cameraId: camera.id, cameraName: camera.name };
        try {
          const snapshot = await this.call(camera, timeoutMs);
          const attachment = await this.deps.attachments.storeBuffer(
            snapshot.bytes,
            { filename: snapshotName(camera, this.deps.clock.now()), refType: 'camera', refId: camera.id },
            null,
          );
          return { ...result, attachmentId: attachment.id, error: null };
        } catch (err) {
          const problem = err instanceof AppError ? err : cameraProblem(err, `Camera ${camera.name}`);
          if (!(err instanceof AppError) && !(err instanceof CameraError)) {
            this.deps.log.error({ err, cameraId: camera.id }, 'snapshot for a movement failed');
          }
          return { ...result, attachmentId: null, error: `${problem.code}: ${problem.detail}` };
        }
      }),
    );
  }

  /** The camera called from this app: a provider camera through its integration, ONVIF on the LAN. */
  private async call(camera: CameraRow, timeoutMs: number): Promise<Snapshot> {
    if (camera.source === 'provider') {
      return this.deps.integrations.snapshot(camera.integrationId!, camera.providerCameraId!, timeoutMs);
    }
    // The camera is on the yard's LAN: only its edge reaches it (forCaller goes through the edge).
    this.deps.onvifReach.assertOnLan(`Camera ${camera.name} is reached through the edge of its site.`);
    return this.deps.onvif.snapshot(camera, timeoutMs);
  }
}

function snapshotName(camera: CameraRow, at: number): string {
  const safe = camera.name.replace(/[^A-Za-z0-9_-]+/g, '-');
  return `snapshot-${safe}-${toIso(at).replace(/[:.]/g, '-')}.jpg`;
}
