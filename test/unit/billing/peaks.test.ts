import { describe, expect, it } from 'vitest';
import {
  dailyPeaks,
  daysTouched,
  distinctPresence,
  presence,
  type Span,
} from '../../../shared/modules/billing/compute/index.js';

const H = 3_600_000;
/** Ten 24-hour "days" from 0, in hours. */
const DAYS: Span[] = Array.from({ length: 10 }, (_, d) => ({ start: d * 24 * H, end: (d + 1) * 24 * H }));
const span = (a: number, b: number): Span => ({ start: a * H, end: b * H });

/**
 * The peak of a day is reached at some instant where a span starts, or at the day's start; count
 * the spans covering each such instant ([start, end) semantics). Quadratic, obviously right.
 */
function bruteForce(spans: Span[], days: Span[]): number[] {
  return days.map((d) => {
    const instants = [d.start, ...spans.map((s) => s.start).filter((t) => t >= d.start && t < d.end)];
    let best = 0;
    for (const t of instants) {
      const n = spans.filter((s) => s.start <= t && t < s.end).length;
      if (n > best) best = n;
    }
    return best;
  });
}

describe('dailyPeaks', () => {
  it('hand vectors: ends before starts at equal times; a span over several days raises each', () => {
    // [2,5) and [5,9): never together -> day 0 peak 1. [20,30) and [21,23) on day 0 -> 2, and
    // [20,30) reaches into day 1 (24..30) -> 1. [48, 120) covers days 2, 3, 4 -> 1 each.
    const peaks = dailyPeaks([span(2, 5), span(5, 9), span(20, 30), span(21, 23), span(48, 120)], DAYS);
    expect(peaks).toEqual([2, 1, 1, 1, 1, 0, 0, 0, 0, 0]);
  });

  it('no spans: all zero; many identical spans: their number', () => {
    expect(dailyPeaks([], DAYS)).toEqual(new Array(10).fill(0));
    expect(dailyPeaks(new Array(7).fill(span(30, 31)), DAYS)[1]).toBe(7);
  });

  it('agrees with brute force on random overlapping spans with shared endpoints', () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const spans: Span[] = [];
      const count = 1 + rand(40);
      for (let k = 0; k < count; k++) {
        // Whole hours within the 240 h: plenty of equal start/end instants.
        const a = rand(240);
        const b = a + 1 + rand(60);
        spans.push(span(a, Math.min(b, 240)));
      }
      expect(dailyPeaks(spans, DAYS)).toEqual(bruteForce(spans, DAYS));
    }
  });
});

describe('presence, distinctPresence, daysTouched', () => {
  const window = span(0, 240);
  it('clips to the window and to now; applies grace to the whole stay', () => {
    expect(presence({ inAt: -5 * H, outAt: 3 * H }, window, 300 * H, 0)).toEqual(span(0, 3));
    expect(presence({ inAt: 230 * H, outAt: null }, span(0, 235), 235 * H, 0)).toEqual(span(230, 235));
    // 30 min with 30 min grace: present; 29 min: not.
    expect(presence({ inAt: 0, outAt: 30 * 60_000 }, window, 300 * H, 30 * 60_000)).not.toBeNull();
    expect(presence({ inAt: 0, outAt: 29 * 60_000 }, window, 300 * H, 30 * 60_000)).toBeNull();
    // Entirely outside, or empty.
    expect(presence({ inAt: -9 * H, outAt: 0 }, window, 300 * H, 0)).toBeNull();
    expect(presence({ inAt: 5 * H, outAt: 5 * H }, window, 300 * H, 0)).toBeNull();
  });

  it('merges one trailer\u2019s overlapping or touching spans', () => {
    const merged = distinctPresence([
      { trailerId: 'T', span: span(10, 14) },
      { trailerId: 'T', span: span(8, 12) },
      { trailerId: 'T', span: span(14, 15) },
      { trailerId: 'T', span: span(20, 21) },
      { trailerId: 'U', span: span(11, 13) },
    ]);
    expect(merged).toEqual([span(8, 15), span(20, 21), span(11, 13)]);
  });

  it('counts the days a span touches, its end excluded', () => {
    expect(daysTouched(span(23, 25), DAYS)).toBe(2);
    expect(daysTouched(span(24, 48), DAYS)).toBe(1);
    expect(daysTouched(span(0, 240), DAYS)).toBe(10);
    expect(daysTouched(span(47, 48), DAYS)).toBe(1);
  });
});
