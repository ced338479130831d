import { toIso } from '../../clock.js';
import { SECRET_MASK } from '../integrations/secrets.js';
import type { CameraRow } from './repo.js';
import type { CameraOutT } from './schema.js';

/** A camera as the API answers it: never its password (masked), its device details parsed. */
export function cameraOut(row: CameraRow): CameraOutT {
  return {
    id: row.id,
    yardId: row.yardId,
    name: row.name,
    gateId: row.gateId,
    enabled: row.enabled === 1,
    source: row.source,
    onvif:
      row.source === 'onvif'
        ? {
            xaddr: row.onvifXaddr!,
            username: row.onvifUsername ?? '',
            password: row.onvifPassword ? SECRET_MASK : null,
            profileToken: row.onvifProfileToken,
            snapshotUri: row.onvifSnapshotUri,
            device: row.deviceInfo
              ? (JSON.parse(row.deviceInfo) as NonNullable<CameraOutT['onvif']>['device'])
              : null,
          }
        : null,
    provider:
      row.source === 'provider'
        ? { integrationId: row.integrationId!, providerCameraId: row.providerCameraId! }
        : null,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    version: row.version,
  };
}
