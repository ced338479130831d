import type { CameraError } from '../types.js';
import { HINTS, isCameraError, type SecretRedactor, type Step, stepError } from './step-errors.js';

export interface ImageErrorContext {
  step: Step;
  redactor: SecretRedactor;
  /** What the operator should check when the image request is refused. */
  unauthorizedHint: string;
  /** When set, a 404 means "no such camera" ('not-found') rather than a wrong URL. */
  notFoundMeansUnknownCamera?: boolean;
  /** Replaces the URL fetchImage names in its message (a signed URL's path may itself be a secret). */
  urlAlias?: { url: string; label: string };
}

/**
 * fetchImage classifies a failed download and words it for a camera on the LAN; for a provider
 * download this says which integration step it was and what to check, and redacts the
 * connection's secrets (a token may be echoed in an error body). Anything that is not a
 * CameraError is a programming error and is returned untouched.
 */
export function rewrapImageError(e: unknown, ctx: ImageErrorContext): CameraError | unknown {
  if (!isCameraError(e)) return e;
  const { step, redactor } = ctx;
  if (e.status === 404 && ctx.notFoundMeansUnknownCamera) {
    return stepError(
      step,
      'not-found',
      'the provider does not know this camera (HTTP 404)',
      HINTS.notFound,
      redactor,
      404,
    );
  }
  if (e.failure === 'unauthorized') {
    const detail = `the provider refused the credentials${e.status ? ` (HTTP ${e.status})` : ''}`;
    return stepError(step, 'unauthorized', detail, ctx.unauthorizedHint, redactor, e.status);
  }
  const hint =
    e.failure === 'unreachable'
      ? HINTS.unreachable
      : e.failure === 'timeout'
        ? HINTS.timeout
        : e.failure === 'not-found'
          ? HINTS.notFound
          : e.status === 429
            ? HINTS.rateLimited
            : e.status !== undefined && e.status >= 500
              ? HINTS.serverError
              : 'Check the integration settings against the provider documentation.';
  const detail = ctx.urlAlias ? e.message.split(ctx.urlAlias.url).join(ctx.urlAlias.label) : e.message;
  return stepError(step, e.failure, detail, hint, redactor, e.status);
}
