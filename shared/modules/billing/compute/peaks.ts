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

/** Spans as two parallel arrays (starts[k], ends[k]): no object per span on the hot path. */
export interface SpanArrays {
  starts: Float64Array;
  ends: Float64Array;
}

/**
 * One span per stretch of time a trailer is present: overlapping (or touching) spans of the same
 * trailer merge, so the sweep counts distinct trailers even if a trailer's visits overlap (which
 * the gate should prevent; counting it twice would bill a space it cannot occupy).
 * Grouping is a counting sort over interned trailer ids; each group (a trailer's few visits of the
 * month) is then insertion-sorted by start.
 */
export function distinctSpans(trailerIds: readonly string[], spans: readonly Span[]): SpanArrays {
  const n = spans.length;
  const groupOf = new Int32Array(n);
  const interned = new Map<string, number>();
  for (let k = 0; k < n; k++) {
    const id = trailerIds[k] as string;
    let g = interned.get(id);
    if (g === undefined) {
      g = interned.size;
      interned.set(id, g);
    }
    groupOf[k] = g;
  }
  const groups = interned.size;
  const offsets = new Int32Array(groups + 1);
  for (let k = 0; k < n; k++) {
    const next = (groupOf[k] as number) + 1;
    offsets[next] = (offsets[next] as number) + 1;
  }
  for (let g = 0; g < groups; g++) offsets[g + 1] = (offsets[g + 1] as number) + (offsets[g] as number);
  const cursor = offsets.slice(0, groups);
  const order = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const g = groupOf[k] as number;
    order[cursor[g] as number] = k;
    cursor[g] = (cursor[g] as number) + 1;
  }

  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  let out = 0;
  for (let g = 0; g < groups; g++) {
    const from = offsets[g] as number;
    const to = offsets[g + 1] as number;
    for (let a = from + 1; a < to; a++) {
      const k = order[a] as number;
      const key = (spans[k] as Span).start;
      let b = a - 1;
      while (b >= from && (spans[order[b] as number] as Span).start > key) {
        order[b + 1] = order[b] as number;
        b--;
      }
      order[b + 1] = k;
    }
    let current = spans[order[from] as number] as Span;
    let start = current.start;
    let end = current.end;
    for (let a = from + 1; a < to; a++) {
      current = spans[order[a] as number] as Span;
      if (current.start <= end) {
        if (current.end > end) end = current.end;
      } else {
        starts[out] = start;
        ends[out] = end;
        out++;
        start = current.start;
        end = current.end;
      }
    }
    starts[out] = start;
    ends[out] = end;
    out++;
  }
  return { starts: starts.subarray(0, out), ends: ends.subarray(0, out) };
}

/** distinctSpans as a list of spans (for callers and tests that want objects). */
export function distinctPresence(keyed: ReadonlyArray<{ trailerId: string; span: Span }>): Span[] {
  const { starts, ends } = distinctSpans(
    keyed.map((k) => k.trailerId),
    keyed.map((k) => k.span),
  );
  return Array.from(starts, (start, k) => ({ start, end: ends[k] as number }));
}

/**
 * For each day (contiguous, sorted), the largest number of spans covering one instant of it.
 * A sweep: the starts and the ends are sorted once (typed arrays: numeric sort, no objects), then
 * merged; at equal times every end is applied before any start, so [a, t) and [t, b) never count
 * together. Between two event times the count is constant: that segment raises the peak of every
 * day it touches. Segments are disjoint, so the work is O(n log n + days).
 * Sorts `arrays` in place. Every span must be non-empty (start < end).
 */
export function sweepPeaks(arrays: SpanArrays, days: readonly Span[]): number[] {
  const { starts, ends } = arrays;
  const n = starts.length;
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

/** sweepPeaks over a list of spans. */
export function dailyPeaks(spans: readonly Span[], days: readonly Span[]): number[] {
  return sweepPeaks(
    { starts: Float64Array.from(spans, (s) => s.start), ends: Float64Array.from(spans, (s) => s.end) },
    days,
  );
}

/** How many of the (contiguous, sorted) days `span` touches. */
export function daysTouched(span: Span, days: readonly Span[]): number {
  // Binary searches: the first day ending after the span starts, the first starting at or after its end.
  let lo = 0;
  let hi = days.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((days[mid] as Span).end <= span.start) lo = mid + 1;
    else hi = mid;
  }
  const first = lo;
  hi = days.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((days[mid] as Span).start < span.end) lo = mid + 1;
    else hi = mid;
  }
  return Math.max(0, lo - first);
}
