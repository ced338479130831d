import { CameraError, type CameraFailure } from '../types.js';

/**
 * Everything a provider says in an error passes through one of these, so a key, secret, password
 * or token can never reach an API answer or a log line, even when an upstream server echoes it back
 * in its own error text. Tokens are added as they are issued.
 */
export class SecretRedactor {
  private readonly secrets = new Set<string>();

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const s of secrets) this.add(s);
  }

  add(secret: string | undefined): void {
    // Very short values would redact ordinary words; they are refused by the config schemas anyway.
    if (secret && secret.length >= 4) this.secrets.add(secret);
  }

  /** A copy that also hides `extra` (for example one call's signed URL). */
  with(...extra: Array<string | undefined>): SecretRedactor {
    return new SecretRedactor([...this.secrets, ...extra]);
  }

  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) out = out.split(s).join('[redacted]');
    return out;
  }
}

/** One step of an integration (for example "getting an API token from https://host/token"). */
export interface Step {
  /** The provider kind, so the operator knows which integration spoke. */
  kind: string;
  /** What we were doing, as a gerund phrase; URLs in it come from urlForMessage. */
  action: string;
}

/**
 * The error for a failed step: "<kind>: <action> failed: <detail>. <hint>". The hint tells the
 * operator what to check; the whole text is redacted.
 */
export function stepError(
  step: Step,
  failure: CameraFailure,
  detail: string,
  hint: string,
  redactor: SecretRedactor,
  status?: number,
): CameraError {
  const text = `${step.kind}: ${step.action} failed: ${detail.replace(/\.+$/, '')}.${hint ? ` ${hint}` : ''}`;
  return new CameraError(failure, redactor.redact(text), status);
}

/**
 * A URL as it may appear in a message: scheme, host, port and path. The query string and any
 * user:password are dropped, because signed URLs and some cameras carry credentials there.
 */
export function urlForMessage(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}

/** "retry after 30 s" / "retry after Tue, 01 Jul 2025 10:00:00 GMT" from a Retry-After header. */
export function retryAfterText(header: string | undefined | null): string {
  if (!header) return 'the provider gave no Retry-After; wait a minute before retrying';
  const value = header.trim();
  if (/^\d+$/.test(value)) return `retry after ${value} s (Retry-After: ${value})`;
  return `retry after ${value.slice(0, 64)} (Retry-After)`;
}

/** The operator hints that do not depend on the provider kind. */
export const HINTS = {
  unreachable:
    'Check the URL in the integration settings and that this site can reach it (DNS, firewall, proxy).',
  timeout: 'The provider may be slow or overloaded; try again, and check the network from this site.',
  serverError: 'The provider had an internal error; try again later, and check its status page.',
  rateLimited: 'The provider is rate limiting this integration; fewer requests will help.',
  notFound: 'Check the provider camera id; list the integration cameras to see the valid ids.',
} as const;

/** The provider answered 404 for a camera id it was asked about: the id is wrong, not the provider. */
export function unknownCameraError(step: Step, redactor: SecretRedactor): CameraError {
  return stepError(
    step,
    'not-found',
    'the provider does not know this camera (HTTP 404)',
    HINTS.notFound,
    redactor,
    404,
  );
}

/** The failure and detail for an HTTP answer that is not a success, apart from 401/403/404. */
export function httpStatusProblem(
  status: number,
  retryAfter: string | undefined | null,
): { detail: string; hint: string } {
  if (status === 429) {
    return { detail: `rate limited (HTTP 429), ${retryAfterText(retryAfter)}`, hint: HINTS.rateLimited };
  }
  if (status >= 500) return { detail: `the provider answered HTTP ${status}`, hint: HINTS.serverError };
  if (status >= 300 && status < 400) {
    return {
      detail: `the provider redirected elsewhere (HTTP ${status}); credentials are never sent on a redirect`,
      hint: 'Check the URL in the integration settings (http versus https, the region host, a trailing path).',
    };
  }
  return {
    detail: `the provider answered HTTP ${status}`,
    hint: 'Check the URL and settings of the integration against the provider documentation.',
  };
}

/** Whether an error is ours (a CameraError) rather than a programming error. */
export function isCameraError(e: unknown): e is CameraError {
  return e instanceof CameraError;
}
