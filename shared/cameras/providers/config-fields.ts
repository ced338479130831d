import { httpUrl } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';

/** Zod pieces the provider config schemas share, with the descriptions the admin form shows. */

/** An http(s) URL without user:password in it (credentials belong in the secret fields). */
export function providerUrl(description: string, example: string) {
  return httpUrl(2048, 'the auth fields').meta({ description, example });
}

/** A write-only credential: accepted on writes, masked on every read (listed in secretFields). */
export function secret(description: string) {
  return z
    .string()
    .min(4, 'is too short to be a real credential')
    .max(4096)
    .meta({ description: `${description} Write-only: masked on every read.`, format: 'password' });
}

/** A non-secret credential part (user name, client id): shown on reads. */
export function credentialName(description: string) {
  return z.string().trim().min(1).max(256).meta({ description });
}
