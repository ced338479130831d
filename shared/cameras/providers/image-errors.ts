import type { CameraError } from '../types.js';
import {
  HINTS,
  isCameraError,
  retryAfterText,
  type SecretRedactor,
  type Step,
  stepError,
  unknownCameraError,
} from './step-errors.js';

export interface ImageErrorContext {
  step: Step;
  redactor: SecretRedactor;
  /** The URL that was fetched: fetchImage names it (origin and path) in its messages; the step already does. */
  url: string;
  /** What the operator should check when the image request is refused. */
  unauthorizedHint: string;
  /** When set, a 404 means "no such camera" ('not-found') rather than a wrong URL. */
  notFoundMeansUnknownCamera?: boolean;
}

/**
 * fetchImage classifies a failed download and words it for a camera on the LAN ("check that the
 * camera is powered"). For a cloud provider's image this keeps the classification, says which
 * integration step failed and what to check there, and redacts the connection's secrets (a token
 * may be echoed in an error body). Anything that is not a CameraError is a programming error and
 * is returned untouched.
 */
export function rewrapImageError(e: unknown, ctx: ImageErrorContext): CameraError | unknown {
  if (!isCameraError(e)) return e;
  const { step, redactor, url } = ctx;
  const { status } = e;
  const failure = droppedConnection(e) ? 'unreachable' : e.failure;
  const httpStatus = status ? ` (HTTP ${status})` : '';
  switch (failure) {
    case 'unauthorized':
      return stepError(
        step,
        'unauthorized',
        `the provider refused the credentials${httpStatus}`,
        ctx.unauthorizedHint,
        redactor,
        status,
      );
    case 'unreachable':
      return stepError(
        step,
        'unreachable',
        `could not connect${errorCode(e.message)}`,
        HINTS.unreachable,
        redactor,
      );
    case 'timeout':
      return stepError(
        step,
        'timeout',
        'no complete image within the timeout',
        HINTS.timeout,
        redactor,
        status,
      );
    case 'address-refused':
      return stepError(step, 'address-refused', e.message, '', redactor);
    default:
      break;
  }
  if (status === 404 && ctx.notFoundMeansUnknownCamera) {
    return unknownCameraError(step, redactor);
  }
  if (status === 429) {
    const detail = `rate limited (HTTP 429), ${retryAfterText(retryAfterIn(e.message))}`;
    return stepError(step, 'bad-response', detail, HINTS.rateLimited, redactor, 429);
  }
  if (status !== undefined && status >= 500) {
    return stepError(
      step,
      'bad-response',
      `the provider answered HTTP ${status}`,
      HINTS.serverError,
      redactor,
      status,
    );
  }
  // Not an image, too large, a redirect, another HTTP status: fetchImage's own words say which.
  return stepError(
    step,
    e.failure,
    withoutUrl(e.message, url, 'it'),
    'Check the integration settings against the provider documentation.',
    redactor,
    status,
  );
}

/**
 * fetchImage's message with its naming of `url` (origin and path, as it prints it) replaced, so a
 * message does not name the same URL twice, or at all when the URL is itself a secret.
 */
export function withoutUrl(message: string, url: string, replacement: string): string {
  let where: string;
  try {
    const u = new URL(url);
    where = `${u.origin}${u.pathname}`;
  } catch {
    return message;
  }
  return message.split(`${where}: `).join('').split(where).join(replacement);
}

/** " (ECONNREFUSED)" from a message that names a system error code, else "". */
function errorCode(message: string): string {
  const code = /\b(E[A-Z]{3,}|ERR_[A-Z_]+)\b/.exec(message)?.[1];
  return code ? ` (${code})` : '';
}

/** The Retry-After value if fetchImage's message quotes one. */
function retryAfterIn(message: string): string | undefined {
  return /Retry-After:?\s*([^;)]+?)\s*(?:[;)]|\.$|$)/i.exec(message)?.[1];
}

/**
 * A connection reset or broken pipe before any answer (a provider restarting, a keep-alive socket
 * it closed) means nothing usable answered: 'unreachable', though fetchImage calls it 'bad-response'.
 */
export function droppedConnection(e: CameraError): boolean {
  return e.failure === 'bad-response' && e.status === undefined && /\b(ECONNRESET|EPIPE)\b/.test(e.message);
}
