import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../clock.js';

/**
 * Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"): a browser that
 * logged in to an account once gets a cookie, signed by the server, that names that account. A
 * login for that account carrying a valid cookie is a trusted device's: it has a failure budget of
 * its own (auth.loginAttemptsPerDevice) and is not held back by the limits that stop strangers
 * (per address, per account: login-limits.ts), so 40 wrong PINs from 40 addresses do not keep the
 * driver's own phone out. A cookie whose device failed that many times since it was issued stops
 * counting (its login is a stranger's again); the next correct login issues a new one.
 *
 * The cookie: `<account>.<nonce>.<expires>.<HMAC-SHA256 of those three>`, base64url, in a cookie
 * named after the account (a gate-house PC used by several clerks keeps one each), HttpOnly,
 * SameSite=Strict, Secure over HTTPS, path /api/auth (sent to the login routes only), kept
 * DEVICE_COOKIE_DAYS. The key is the server's secret `login-device` (table server_secret), made once
 * and shared by every node of a cloud on one PostgreSQL.
 * A device's failures are counted in this process's memory: a restart, or another cloud node,
 * counts afresh (at most the budget once more per node).
 */
export const DEVICE_COOKIE_DAYS = 180;
const DAY_MS = 24 * 60 * 60 * 1000;
const COOKIE_PREFIX = 'yard_device_';
/** Devices whose failures are remembered at once; past it the oldest entry is forgotten. */
export const MAX_REMEMBERED = 50_000;

export interface DeviceCookie {
  name: string;
  value: string;
  maxAgeMs: number;
}

export interface LoginDevicesDeps {
  /** The HMAC key (the server secret `login-device`), read once. */
  key: () => Promise<string>;
  clock: Clock;
  /** Failed logins a device may make before its cookie stops counting. */
  maxFailures: number;
}

export class LoginDevices {
  private key: Promise<Buffer> | undefined;
  /** nonce -> failed logins since the cookie was issued, and when the cookie expires. */
  private readonly failures = new Map<string, { count: number; expiresAt: number }>();

  constructor(private readonly deps: LoginDevicesDeps) {}

  /** A new cookie for a device that just logged in to `account` (an accountKey). */
  async issue(account: string): Promise<DeviceCookie> {
    const maxAgeMs = DEVICE_COOKIE_DAYS * DAY_MS;
    const expires = Math.floor((this.deps.clock.now() + maxAgeMs) / 1000);
    const signed = `${b64(account)}.${randomBytes(16).toString('base64url')}.${expires}`;
    return { name: cookieName(account), value: `${signed}.${await this.sign(signed)}`, maxAgeMs };
  }

  /**
   * The nonce of the request's valid, unspent cookie for `account`, or undefined: none, another
   * account's, a bad signature, expired, or spent its failures.
   */
  async trusted(cookieHeader: string | undefined, account: string): Promise<string | undefined> {
    const value = cookieValue(cookieHeader, cookieName(account));
    const parts = value?.split('.');
    if (parts?.length !== 4) return undefined;
    const [who, nonce, expires, signature] = parts as [string, string, string, string];
    if (who !== b64(account) || !/^\d+$/.test(expires)) return undefined;
    const expected = Buffer.from(await this.sign(`${who}.${nonce}.${expires}`));
    const actual = Buffer.from(signature);
    if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
    if (Number(expires) * 1000 <= this.deps.clock.now()) return undefined;
    if ((this.failures.get(nonce)?.count ?? 0) >= this.deps.maxFailures) return undefined;
    return nonce;
  }

  /** How many devices' failures are remembered now. */
  get remembered(): number {
    return this.failures.size;
  }

  /** A trusted device's login failed: one more against its own budget. */
  failed(nonce: string): void {
    const now = this.deps.clock.now();
    const entry = this.failures.get(nonce) ?? { count: 0, expiresAt: now + DEVICE_COOKIE_DAYS * DAY_MS };
    this.failures.delete(nonce);
    for (const [old, e] of this.failures) {
      if (this.failures.size < MAX_REMEMBERED && e.expiresAt > now) break;
      this.failures.delete(old);
    }
    this.failures.set(nonce, { ...entry, count: entry.count + 1 });
  }

  private async sign(text: string): Promise<string> {
    this.key ??= this.deps.key().then(
      (k) => Buffer.from(k, 'hex'),
      (err: unknown) => {
        this.key = undefined;
        throw err;
      },
    );
    return createHmac('sha256', await this.key)
      .update(text)
      .digest('base64url');
  }
}

/** A fresh key for server_secret `login-device`: 32 random bytes, hex. */
export function newDeviceKey(): string {
  return randomBytes(32).toString('hex');
}

/** One cookie per account: named after a hash of it (cookie names allow few characters). */
export function cookieName(account: string): string {
  return COOKIE_PREFIX + createHash('sha256').update(account).digest('hex').slice(0, 16);
}

/** The value of cookie `name` in a Cookie header (RFC 6265: `a=1; b=2`), or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
