import { CameraError } from '../../cameras/types.js';
import { AppError } from '../../http/errors.js';

/**
 * A camera or provider failure as the API answers it: 502 when the camera answered badly or not at
 * all, 504 when it ran out of time, 404 when the provider does not know the camera, 409 when the
 * outbound address policy refused its address. The message
 * comes from the adapter, which keeps secrets out of it.
 */
export function cameraProblem(err: unknown, what: string): AppError {
  if (!(err instanceof CameraError)) {
    return err instanceof AppError
      ? err
      : new AppError(
          502,
          'camera-failed',
          'Camera failed',
          `${what}: ${String((err as Error)?.message ?? err)}`,
        );
  }
  const detail = `${what}: ${err.message}`;
  switch (err.failure) {
    case 'unauthorized':
      return new AppError(502, 'camera-auth-failed', 'Camera refused the credentials', detail);
    case 'unreachable':
      return new AppError(502, 'camera-unreachable', 'Camera unreachable', detail);
    case 'timeout':
      return new AppError(504, 'camera-timeout', 'Camera timed out', detail);
    case 'not-found':
      return new AppError(404, 'not-found', 'Not found', detail);
    case 'address-refused':
      // Our own outbound address policy, not the camera: nothing was sent (docs/security.md).
      return new AppError(409, 'address-refused', 'Address refused', detail);
    default:
      return new AppError(502, 'camera-bad-response', 'Camera answered badly', detail);
  }
}
