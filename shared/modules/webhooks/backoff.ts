/** How long a delivery is retried before it is given up (docs/webhooks.md "Retries"). */
export const DAY_MS = 24 * 60 * 60 * 1000;

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

/**
 * The wait after the n-th failed attempt of a window (n = 1, 2, ...): 5 s, 30 s, 2 min, 10 min,
 * 30 min, 1 h, 2 h, 4 h, 8 h, then 8 h again; the last attempt is at the end of the 24 hours. Each
 * wait is varied by up to 20 % either way, so receivers coming back from an outage are not hit by
 * every sender at the same instant.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * S,
  30 * S,
  2 * MIN,
  10 * MIN,
  30 * MIN,
  H,
  2 * H,
  4 * H,
  8 * H,
];

export const JITTER = 0.2;

/**
 * When to try again after the `attempts`-th failed attempt at `now`, or null when that was the last
 * one (the window ended at `giveUpAt`). A wait that would reach past the end is cut to the end, so
 * the last attempt falls exactly on it. `random` gives [0, 1) (seeded in tests).
 */
export function nextAttemptAt(
  attempts: number,
  now: number,
  giveUpAt: number,
  random: () => number,
): number | null {
  if (now >= giveUpAt) return null;
  const base = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS[0]!;
  const wait = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  return Math.min(now + wait, giveUpAt);
}
