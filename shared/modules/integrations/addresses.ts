import { type FieldError, ValidationError } from '../../http/errors.js';
import { fieldPath } from '../../http/validation.js';
import {
  assertAddressAllowed,
  type OutboundPolicy,
  OutboundRefusedError,
} from '../../net/outbound-policy.js';
import { carriedSecrets, secretsToResend } from './secrets.js';

/** Every http(s) URL string in a config (nested objects and arrays too), with its field path. */
export function urlFields(
  value: unknown,
  path: PropertyKey[] = [],
): Array<{ path: PropertyKey[]; url: string }> {
  if (typeof value === 'string') {
    return /^https?:\/\//i.test(value) && URL.canParse(value) ? [{ path, url: value }] : [];
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => urlFields(v, [...path, i]));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => urlFields(v, [...path, k]));
  }
  return [];
}

/**
 * The outbound address policy applied when a camera or integration address is stored: one
 * error per refused address, named by its field (`part` is the request part, e.g. body.config).
 */
export async function refusedAddresses(
  fields: ReadonlyArray<{ path: PropertyKey[]; url: string }>,
  part: string,
  policy: OutboundPolicy,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const field of fields) {
    try {
      await assertAddressAllowed(field.url, policy);
    } catch (err) {
      if (!(err instanceof OutboundRefusedError)) throw err;
      errors.push({ path: fieldPath(part, field.path), message: err.message, code: 'address-refused' });
    }
  }
  return errors;
}

/**
 * A config whose addresses moved to a new origin, or whose auth type changed, must carry its kept
 * secrets again (secrets.ts).
 */
export function assertSecretsFollowAddresses(
  stored: Record<string, unknown>,
  incoming: Record<string, unknown>,
  next: Record<string, unknown>,
  secretFields: readonly string[],
): void {
  const resend = secretsToResend(
    { urls: urlFields(stored).map((f) => f.url), config: stored },
    { urls: urlFields(next).map((f) => f.url), config: next },
    carriedSecrets(incoming, next, secretFields),
  );
  if (resend.length === 0) return;
  throw new ValidationError(
    resend.map(({ path, message }) => ({
      path: fieldPath('body.config', path.split('.')),
      message,
      code: 'secret-required',
    })),
    'The address or the authentication changed: send the secrets again with it; nothing was stored.',
  );
}
