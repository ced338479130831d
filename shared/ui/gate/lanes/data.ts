import { api, call } from '../../common/api/client';
import { type HardwareStatus, loadHardwareStatus } from '../../common/gates/data';

export { attachmentBlob } from '../../common/reads';
export { type HardwareStatus, loadHardwareStatus };

/** A camera's picture taken now (the lane card's latest picture). */
export function cameraSnapshot(cameraId: string): Promise<Blob> {
  return call(
    api.GET('/api/camera/{id}/snapshot', { params: { path: { id: cameraId }, query: {} }, parseAs: 'blob' }),
  ) as Promise<Blob>;
}
