import type { Clock } from '../clock.js';

/** How far ahead of our clock a received timestamp may be (docs/sync.md "Clock bounds"): 5 minutes by default. */
export const DEFAULT_MAX_AHEAD_MS = 5 * 60_000;

/** Largest epoch ms that fits the 13-digit field (year 2286). */
const MAX_MS = 9_999_999_999_999;

/**
 * Hybrid logical clock: `<epoch ms, 13 digits>-<counter, 4 hex>-<origin>`.
 * Strings compare in causal order with plain `<` (fixed-width fields), which is what the
 * per-field last-writer-wins merge needs.
 *
 * A received timestamp more than `maxAheadMs` ahead of our wall clock never advances the clock:
 * one forged or broken row would otherwise drag every later write of ours into its future (and
 * past the 13-digit field, which peers refuse as malformed). The applier refuses such rows
 * (`aheadBy`); `receive` ignores them.
 */
export class Hlc {
  private lastMs = 0;
  private counter = 0;
  /** Largest amount a received clock was ahead of ours, for /api/sync/status. */
  maxSkewMs = 0;

  constructor(
    private readonly clock: Clock,
    readonly origin: string,
    readonly maxAheadMs: number = DEFAULT_MAX_AHEAD_MS,
  ) {
    if (!/^[A-Za-z0-9_.:-]+$/.test(origin))
      throw new Error(`HLC origin "${origin}" has characters outside [A-Za-z0-9_.:-]`);
  }

  /** A new timestamp, strictly greater than every one issued or received before. */
  next(): string {
    const wall = this.clock.now();
    if (wall > this.lastMs) {
      this.lastMs = wall;
      this.counter = 0;
    } else {
      this.counter += 1;
      if (this.counter > 0xffff) {
        // Counter exhausted within one millisecond: borrow the next millisecond.
        this.lastMs += 1;
        this.counter = 0;
      }
    }
    if (this.lastMs > MAX_MS) throw new Error('HLC past its 13-digit range');
    return format(this.lastMs, this.counter, this.origin);
  }

  /**
   * How many ms a timestamp is ahead of our wall clock beyond the allowed skew (0 when within it),
   * recording the skew for /api/sync/status either way. Throws on a malformed timestamp.
   */
  aheadBy(remote: string): number {
    const ahead = parseHlc(remote).ms - this.clock.now();
    this.maxSkewMs = Math.max(this.maxSkewMs, ahead);
    return ahead > this.maxAheadMs ? ahead : 0;
  }

  /** Advance past a timestamp received from a peer (ignored when too far ahead, see above). */
  receive(remote: string): void {
    if (this.aheadBy(remote) > 0) return;
    const parsed = parseHlc(remote);
    if (parsed.ms > this.lastMs) {
      this.lastMs = parsed.ms;
      this.counter = parsed.counter;
    } else if (parsed.ms === this.lastMs && parsed.counter > this.counter) {
      this.counter = parsed.counter;
    }
  }
}

export function format(ms: number, counter: number, origin: string): string {
  return `${String(ms).padStart(13, '0')}-${counter.toString(16).padStart(4, '0')}-${origin}`;
}

export function parseHlc(value: string): { ms: number; counter: number; origin: string } {
  const m = /^(\d{13})-([0-9a-f]{4})-(.+)$/.exec(value);
  if (!m) throw new Error(`Not an HLC timestamp: ${value}`);
  return { ms: Number(m[1]), counter: Number.parseInt(m[2]!, 16), origin: m[3]! };
}
