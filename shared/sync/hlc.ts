import type { Clock } from '../clock.js';

/**
 * Hybrid logical clock: `<epoch ms, 13 digits>-<counter, 4 hex>-<origin>`.
 * Strings compare in causal order with plain `<` (fixed-width fields), which is what the
 * per-field last-writer-wins merge needs.
 */
export class Hlc {
  private lastMs = 0;
  private counter = 0;
  /** Largest amount a received clock was ahead of ours, for /api/sync/status. */
  maxSkewMs = 0;

  constructor(
    private readonly clock: Clock,
    readonly origin: string,
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
    return format(this.lastMs, this.counter, this.origin);
  }

  /** Advance past a timestamp received from a peer. */
  receive(remote: string): void {
    const parsed = parseHlc(remote);
    const wall = this.clock.now();
    this.maxSkewMs = Math.max(this.maxSkewMs, parsed.ms - wall);
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
