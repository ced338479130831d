import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { Hlc, parseHlc } from '../../../shared/sync/hlc.js';

describe('HLC bounds (docs/sync.md "Clock bounds")', () => {
  const start = Date.parse('2026-11-23T12:00:00Z');

  it('a received clock far ahead is reported but never advances ours', () => {
    const clock = new ManualClock(start);
    const hlc = new Hlc(clock, 'cloud', 300_000);
    hlc.receive('9999999999999-ffff-x');
    expect(hlc.maxSkewMs).toBeGreaterThan(300_000);
    const next = hlc.next();
    expect(next).toMatch(/^\d{13}-[0-9a-f]{4}-cloud$/);
    expect(parseHlc(next).ms).toBe(start);
    expect(hlc.aheadBy('9999999999999-ffff-x')).toBeGreaterThan(0);
  });

  it('a clock within the skew advances ours, and a full counter borrows the next millisecond', () => {
    const clock = new ManualClock(start);
    const hlc = new Hlc(clock, 'cloud', 300_000);
    const ahead = `${start + 60_000}-ffff-site-a`;
    expect(hlc.aheadBy(ahead)).toBe(0);
    hlc.receive(ahead);
    expect(hlc.next()).toBe(`${start + 60_001}-0000-cloud`);
  });
});
