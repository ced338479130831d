import { describe, expect, it } from 'vitest';
import { DAY_MS, nextAttemptAt, RETRY_DELAYS_MS } from '../../../shared/modules/webhooks/backoff.js';

const T0 = Date.parse('2026-03-02T12:00:00Z');
const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

/** The retry schedule of webhook deliveries (docs/webhooks.md "Delivery"). */
describe('webhook retry backoff', () => {
  it('waits 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, then 8 h again', () => {
    expect(RETRY_DELAYS_MS).toEqual([5 * S, 30 * S, 2 * MIN, 10 * MIN, 30 * MIN, H, 2 * H, 4 * H, 8 * H]);
    const waits = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(
      (n) => nextAttemptAt(n, T0, T0 + DAY_MS, () => 0.5)! - T0,
    );
    expect(waits).toEqual([5 * S, 30 * S, 2 * MIN, 10 * MIN, 30 * MIN, H, 2 * H, 4 * H, 8 * H, 8 * H]);
  });

  it('varies each wait by 20 % either way', () => {
    expect(nextAttemptAt(2, T0, T0 + DAY_MS, () => 0)).toBe(T0 + 24 * S);
    expect(nextAttemptAt(2, T0, T0 + DAY_MS, () => 0.999999)).toBe(T0 + 36 * S);
  });

  it('puts the last attempt at the end of the 24 hours, and none after it', () => {
    const end = T0 + DAY_MS;
    expect(nextAttemptAt(9, end - H, end, () => 0.5)).toBe(end);
    expect(nextAttemptAt(10, end, end, () => 0.5)).toBeNull();
    expect(nextAttemptAt(3, end + 1, end, () => 0.5)).toBeNull();
  });

  it('brings an attempt schedule to 24 hours in at most a dozen attempts', () => {
    let at = T0;
    let n = 0;
    for (let next: number | null = T0; next !== null; n++) {
      at = next;
      next = nextAttemptAt(n + 1, at, T0 + DAY_MS, () => 0.5);
    }
    expect(at).toBe(T0 + DAY_MS);
    expect(n).toBe(12);
  });
});
