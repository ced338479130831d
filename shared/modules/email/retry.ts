const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** How long a mail is retried before it is given up on (failed, shown with its last error). */
export const RETRY_WINDOW_MS = 24 * HOUR;

/**
 * The waits after the 1st, 2nd, ... failed attempt (docs/configuration.md "Email to carriers"): soon at
 * first (a server restarting), then further apart; after the last one a final attempt at the end
 * of the 24 hours.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  30 * SECOND,
  2 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  4 * HOUR,
  8 * HOUR,
];

/** Each wait is moved by up to this share either way, so mails failed together do not retry together. */
export const JITTER = 0.2;

/**
 * When to try again after `attempts` failed attempts, or null to give up: never past `giveUpAt`,
 * and at `giveUpAt` once the waits are used up. `random` in [0, 1) (Math.random; tests fix it).
 */
export function nextAttemptAt(
  attempts: number,
  now: number,
  giveUpAt: number,
  random: () => number = Math.random,
): number | null {
  if (now >= giveUpAt) return null;
  const delay = RETRY_DELAYS_MS[attempts - 1];
  if (delay === undefined) return giveUpAt;
  const jittered = Math.round(delay * (1 + JITTER * (2 * random() - 1)));
  return Math.min(now + jittered, giveUpAt);
}
