/** Wall clock, injected so tests can control time. Epoch milliseconds. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private t: number = Date.parse('2026-01-15T12:00:00Z')) {}
  now(): number {
    return this.t;
  }
  set(t: number | string): void {
    this.t = typeof t === 'string' ? Date.parse(t) : t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export const toIso = (ms: number): string => new Date(ms).toISOString();
export const toIsoOrNull = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();
