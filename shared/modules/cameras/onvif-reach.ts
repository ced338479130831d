import type { Principal } from '../../auth/principal.js';
import type { Snapshot } from '../../cameras/types.js';
import { AppError, ConflictError } from '../../http/errors.js';
import { type RunAtSiteOfYard, requestedBy, SnapshotResult } from '../../sync/commands.js';
import type { CameraRow } from './repo.js';

/** A picture from a camera and, when it was kept, its attachment. */
export interface CameraPicture {
  snapshot: Snapshot;
  attachmentId: string | null;
}

/**
 * How this app reaches the ONVIF cameras on a yard's LAN, chosen once at start (shared/services.ts):
 * an edge is on that LAN and calls them itself (onvifOnLan); the cloud is not, and has the edge of
 * the camera's site act for it (onvifThroughSite). Provider cameras are called from anywhere.
 */
export interface OnvifReach {
  /**
   * The picture an API caller asked of an ONVIF camera: `takeHere` calls the camera from this app;
   * through the site, the edge takes it (with store, the attachment is made there and arrives by sync).
   */
  pictureFor(
    camera: CameraRow,
    principal: Principal,
    store: boolean,
    takeHere: () => Promise<CameraPicture>,
  ): Promise<CameraPicture>;
  /** Refuses (409 edge-only, with this detail) a call this app would make to a yard's LAN itself. */
  assertOnLan(detail: string): void;
}

/** The edge: the cameras are on its LAN. */
export const onvifOnLan: OnvifReach = {
  pictureFor: (_camera, _principal, _store, takeHere) => takeHere(),
  assertOnLan: () => {},
};

/** The cloud: an ONVIF camera's picture is taken by the edge of its site (a down/cmd command). */
export function onvifThroughSite(runAtSite: RunAtSiteOfYard): OnvifReach {
  return {
    async pictureFor(camera, principal, store) {
      const args = { cameraId: camera.id, store, requestedBy: requestedBy(principal) };
      const result = await runAtSite(camera.yardId, 'snapshot', args, SnapshotResult);
      // The bytes come back base64 in the edge's answer.
      const bytes = Buffer.from(result.base64, 'base64');
      if (bytes.length !== result.bytes) {
        throw new AppError(
          502,
          'bad-site-answer',
          'Bad answer from the site',
          `The edge sent ${bytes.length} of the picture's ${result.bytes} bytes; try again.`,
        );
      }
      const snapshot: Snapshot = { bytes, contentType: result.contentType, elapsedMs: result.elapsedMs };
      return { snapshot, attachmentId: result.attachmentId };
    },
    assertOnLan(detail) {
      throw new ConflictError('edge-only', detail);
    },
  };
}
