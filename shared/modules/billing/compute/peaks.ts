import type { Span } from './period.js';

/**
 * Presence of trailers over yard-local days (docs/domain.md "Billing"): a trailer is present over
 * [in, out) — so a departure and an arrival at the same instant do not overlap — or up to `now`
 * while still in the yard; a visit shorter than the grace minutes is never present.
 */

export interface Stay {
  inAt: number;
  /** null: still in the yard. */
  outAt: number | null;
}

/**
 * The part of the window over which `stay` is present, or null when it is never present in it.
 * Grace is judged on the whole stay (an open stay: so far, up to `now`), not on the part inside
 * the window: a 3-hour stay that straddles the period's start is not "short" in the new period.
 * A stay of exactly the grace minutes is present (only a shorter one is not).
 */
export function presence(stay: Stay, window: Span, now: number, graceMs: number): Span | null {
  const out = stay.outAt ?? now;
  if (out - stay.inAt < graceMs) return null;
  const start = Math.max(stay.inAt, window.start);
  const end = Math.min(out, window.end);
  return start < end ? { start, end } : null;
}

/**
 * One span per stretch of time a trailer is present: overlapping (or touching) spans of the same
 * trailer merge, so `dailyPeaks` counts distinct trailers even if a trailer's visits overlap
 * (which the gate should prevent; counting it twice would bill a space it cannot occupy).
 */
export function distinctPresence(keyed: ReadonlyArray<{ trailerId: string; span: Span }>): Span[] {
  const byTrailer = new Map<string, Span[]>();
  for (const { trailerId, span } of keyed) {
    const list = byTrailer.get(trailerId);
    if (list) list.push(span);
    else byTrailer.set(trailerId, [span]);
  }
  const merged: Span[] = [];
  for (const list of byTrailer.values()) {
    if (list.length === 1) {
      merged.push(list[0] as Span);
      continue;
    }
    list.sort((a, b) => a.start - b.start);
    let current = { ...(list[0] as Span) };
    for (const span of list.slice(1)) {
      if (span.start <= current.end) current.end = Math.max(current.end, span.end);
      else {
        merged.push(current);
        current = { ...span };
      }
    }
    merged.push(current);
  }
  return merged;
}

/** First index in [0, n) for which `past(i)` is false, given `past` is true then false. */
function firstNotPast(n: number, past: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (past(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * For each day (contiguous, sorted), the largest number of `spans` covering one instant of it.
 * A sweep: the starts and the ends are sorted once (typed arrays: numeric sort, no objects), then
 * merged; at equal times every end is applied before any start, so [a, t) and [t, b) never count
 * together. Between two event times the count is constant: that segment raises the peak of every
 * day it touches. Segments are disjoint, so the work is O(n log n + days).
 */
export function dailyPeaks(spans: readonly Span[], days: readonly Span[]): number[] {
  const n = spans.length;
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const s = spans[k] as Span;
    starts[k] = s.start;
    ends[k] = s.end;
  }
  starts.sort();
  ends.sort();

  const peaks = new Array<number>(days.length).fill(0);
  let i = 0; // next start
  let j = 0; // next end
  let count = 0;
  let day = 0;
  while (j < n) {
    const t = i < n ? Math.min(starts[i] as number, ends[j] as number) : (ends[j] as number);
    while (j < n && ends[j] === t) {
      count--;
      j++;
    }
    while (i < n && starts[i] === t) {
      count++;
      i++;
    }
    if (count === 0) continue;
    const next = i < n ? Math.min(starts[i] as number, ends[j] as number) : (ends[j] as number);
    // The segment [t, next) holds `count` trailers.
    while (day < days.length && (days[day] as Span).end <= t) day++;
    for (let d = day; d < days.length && (days[d] as Span).start < next; d++) {
      if (count > (peaks[d] as number)) peaks[d] = count;
    }
  }
  return peaks;
}

/** How many of the (contiguous, sorted) days `span` touches. */
export function daysTouched(span: Span, days: readonly Span[]): number {
  const first = firstNotPast(days.length, (d) => (days[d] as Span).end <= span.start);
  const after = firstNotPast(days.length, (d) => (days[d] as Span).start < span.end);
  return Math.max(0, after - first);
}
