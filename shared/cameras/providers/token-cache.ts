import { CameraError } from '../types.js';
import type { Deadline } from './deadline.js';

/** A token as issued, and when to stop using it (by the connection's injected clock). */
export interface IssuedToken {
  value: string;
  /** Epoch ms after which a new token is requested. */
  refreshAtMs: number;
}

/** Providers reject a token at expiry, and clocks drift: stop using it this long before. */
const MAX_REFRESH_MARGIN_MS = 60_000;

/**
 * When to refresh a token that lives `lifetimeMs` from `issuedAtMs`: a minute before it expires,
 * or a tenth of its life for short-lived tokens, so a 30 s token is not refreshed on every call.
 */
export function refreshAt(issuedAtMs: number, lifetimeMs: number): number {
  return issuedAtMs + lifetimeMs - Math.min(MAX_REFRESH_MARGIN_MS, lifetimeMs / 10);
}

/**
 * Holds one integration's short-lived token. Requests reuse it until shortly before it expires;
 * concurrent callers that find it missing share one token request (a burst of snapshots at a gate
 * must not fetch ten tokens, providers rate-limit the token endpoint); a caller whose data request
 * got 401 invalidates the token it used, so the next get() fetches a fresh one.
 */
export class TokenCache {
  private current: IssuedToken | undefined;
  private pending: Promise<IssuedToken> | undefined;

  constructor(
    /** Requests a new token within the deadline; throws a CameraError on failure. */
    private readonly issue: (deadline: Deadline) => Promise<IssuedToken>,
    private readonly now: () => number,
    private readonly onTimeout: () => Error,
  ) {}

  /** A valid token: the cached one, the one being requested, or a new one. */
  async get(deadline: Deadline): Promise<string> {
    const cached = this.current;
    if (cached && this.now() < cached.refreshAtMs) return cached.value;
    if (!this.pending) {
      const request = this.issue(deadline).then((token) => {
        this.current = token;
        return token;
      });
      this.pending = request;
      // Whatever the outcome, the next caller after this request starts from the cache again.
      const clear = () => {
        if (this.pending === request) this.pending = undefined;
      };
      request.then(clear, clear);
    }
    // A caller joining another's request still keeps to its own budget.
    const token = await deadline.race(this.pending, this.onTimeout);
    return token.value;
  }

  /** Drops `value` if it is still the cached token (another caller may already have replaced it). */
  invalidate(value: string): void {
    if (this.current?.value === value) this.current = undefined;
  }
}

/**
 * Runs a data request with the cached token. Tokens can be revoked or expire early (a provider
 * restart, a clock off by minutes), so a 401 refreshes the token once and retries; a second 401
 * is reported, since the key itself is then the problem.
 */
export async function withToken<T>(
  cache: TokenCache,
  deadline: Deadline,
  call: (token: string) => Promise<T>,
): Promise<T> {
  const token = await cache.get(deadline);
  try {
    return await call(token);
  } catch (e) {
    if (!(e instanceof CameraError) || e.failure !== 'unauthorized') throw e;
    cache.invalidate(token);
    return call(await cache.get(deadline));
  }
}
