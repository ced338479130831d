import { createHash, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Mosquitto password-file hashes, so the cloud's embedded broker and a Mosquitto `password_file`
 * accept the same site credentials (one hash stored in the `site` table serves both).
 *
 * Format written by mosquitto_passwd (2.x): `$7$<iterations>$<base64 salt>$<base64 hash>`, where
 * hash = PBKDF2-HMAC-SHA512(password, salt, iterations, 64 bytes), salt 12 random bytes, standard
 * base64 with padding. 101 iterations is mosquitto_passwd's default; it is low, but the site
 * passwords we provision are 24+ random bytes, so the hash's cost is not what protects them.
 * Verification also accepts the older `$6$<salt>$<hash>` lines (hash = SHA512(password || salt)).
 */
export const MOSQUITTO_DEFAULT_ITERATIONS = 101;
const SALT_BYTES = 12;
const HASH_BYTES = 64;
/** A hash from a file we did not write must not make one login cost seconds of CPU. */
const MAX_ITERATIONS = 1_000_000;

export function hashMosquittoPassword(
  password: string,
  options: { iterations?: number; salt?: Buffer } = {},
): string {
  const iterations = options.iterations ?? MOSQUITTO_DEFAULT_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS) {
    throw new RangeError(`iterations must be an integer from 1 to ${MAX_ITERATIONS}`);
  }
  const salt = options.salt ?? randomBytes(SALT_BYTES);
  const hash = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, HASH_BYTES, 'sha512');
  return `$7$${iterations}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** True when `password` matches a `$7$` (or legacy `$6$`) Mosquitto hash; false for anything else. */
export function verifyMosquittoPassword(password: string, encoded: string): boolean {
  const parsed = parseMosquittoHash(encoded);
  if (!parsed) return false;
  const secret = Buffer.from(password, 'utf8');
  const actual =
    parsed.type === 7
      ? pbkdf2Sync(secret, parsed.salt, parsed.iterations, parsed.hash.length, 'sha512')
      : createHash('sha512').update(secret).update(parsed.salt).digest();
  return actual.length === parsed.hash.length && timingSafeEqual(actual, parsed.hash);
}

interface ParsedHash {
  type: 6 | 7;
  iterations: number;
  salt: Buffer;
  hash: Buffer;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The parts of a Mosquitto hash, or undefined when it is not one we can check. */
export function parseMosquittoHash(encoded: string): ParsedHash | undefined {
  const parts = encoded.trim().split('$');
  // A leading '$' makes parts[0] empty.
  if (parts[0] !== '') return undefined;
  if (parts[1] === '7' && parts.length === 5) {
    const iterations = Number(parts[2]);
    if (!/^\d+$/.test(parts[2] ?? '') || iterations < 1 || iterations > MAX_ITERATIONS) return undefined;
    return decodeParts(7, iterations, parts[3], parts[4]);
  }
  if (parts[1] === '6' && parts.length === 4) return decodeParts(6, 1, parts[2], parts[3]);
  return undefined;
}

function decodeParts(
  type: 6 | 7,
  iterations: number,
  salt: string | undefined,
  hash: string | undefined,
): ParsedHash | undefined {
  if (!salt || !hash || !BASE64.test(salt) || !BASE64.test(hash)) return undefined;
  const hashBytes = Buffer.from(hash, 'base64');
  if (hashBytes.length !== HASH_BYTES) return undefined;
  return { type, iterations, salt: Buffer.from(salt, 'base64'), hash: hashBytes };
}
