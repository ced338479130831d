import { describe, expect, it } from 'vitest';
import {
  hashMosquittoPassword,
  parseMosquittoHash,
  verifyMosquittoPassword,
} from '../../../shared/sync/mosquitto-password.js';

// Made by Python's hashlib (an independent PBKDF2 / SHA-512) with salt bytes 0..11; the vector from
// the real mosquitto_passwd is checked in test/system/mosquitto.test.ts.
const SALT = Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
const PBKDF2_VECTOR =
  '$7$101$AAECAwQFBgcICQoL$lp0Cm29zl+CI/RXyXDKvLye7OxM3OuE6RMzgXTX/f3imS/pFh2Ur7yarLDpKRUKpB0tOj6l0UrRv41zqxmD4tg==';
const SHA512_VECTOR =
  '$6$AAECAwQFBgcICQoL$5W8GCQ9GLgmhmQvoa8jmRaPnsh82mRigdSv6mQsK0sMIII/WznlQb1g+RWddfoAKTMzBJP1deJU+Rp/1QZ0zZg==';

describe('Mosquitto password hashes', () => {
  it('writes the mosquitto_passwd format: $7$101$<12-byte salt>$<64-byte hash>, standard base64', () => {
    const hash = hashMosquittoPassword('s3cret-password');
    expect(hash).toMatch(/^\$7\$101\$[A-Za-z0-9+/]{16}\$[A-Za-z0-9+/]{86}==$/);
    const parsed = parseMosquittoHash(hash)!;
    expect(parsed.salt).toHaveLength(12);
    expect(parsed.hash).toHaveLength(64);
  });

  it('matches an independent PBKDF2-HMAC-SHA512 implementation byte for byte', () => {
    expect(hashMosquittoPassword('correct horse', { salt: SALT })).toBe(PBKDF2_VECTOR);
  });

  it('round trips and refuses a wrong password', () => {
    const hash = hashMosquittoPassword('s3cret-password');
    expect(verifyMosquittoPassword('s3cret-password', hash)).toBe(true);
    expect(verifyMosquittoPassword('s3cret-passwore', hash)).toBe(false);
    expect(verifyMosquittoPassword('', hash)).toBe(false);
  });

  it('uses a fresh salt each time', () => {
    expect(hashMosquittoPassword('same')).not.toBe(hashMosquittoPassword('same'));
  });

  it('verifies other iteration counts and the legacy $6$ format', () => {
    const slow = hashMosquittoPassword('pw-1000', { iterations: 1000 });
    expect(slow.startsWith('$7$1000$')).toBe(true);
    expect(verifyMosquittoPassword('pw-1000', slow)).toBe(true);
    expect(verifyMosquittoPassword('correct horse', SHA512_VECTOR)).toBe(true);
    expect(verifyMosquittoPassword('correct horsE', SHA512_VECTOR)).toBe(false);
  });

  it('treats anything that is not a hash it can check as a mismatch', () => {
    for (const bad of [
      '',
      'plain-text',
      '$7$101$AAECAwQFBgcICQoL',
      '$7$abc$AAECAwQFBgcICQoL$AAAA',
      '$7$101$AAECAwQFBgcICQoL$AAAA',
      '$7$0$AAECAwQFBgcICQoL$lp0Cm29zl+CI/RXyXDKvLye7OxM3OuE6RMzgXTX/f3imS/pFh2Ur7yarLDpKRUKpB0tOj6l0UrRv41zqxmD4tg==',
      '$7$99999999$AAECAwQFBgcICQoL$lp0Cm29zl+CI/RXyXDKvLye7OxM3OuE6RMzgXTX/f3imS/pFh2Ur7yarLDpKRUKpB0tOj6l0UrRv41zqxmD4tg==',
      '$8$argon2id-is-not-supported',
    ]) {
      expect(verifyMosquittoPassword('correct horse', bad), bad).toBe(false);
    }
  });

  it('refuses an iteration count it would not verify', () => {
    expect(() => hashMosquittoPassword('x', { iterations: 0 })).toThrow(RangeError);
  });
});
