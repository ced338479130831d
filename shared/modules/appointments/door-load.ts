/**
 * How many appointments a door holds over time (docs/domain.md "Booking rules": a door never holds
 * more than its `capacity` at any instant; intervals are half-open, so one ending at a start does
 * not overlap it). Built once per door from its bookings, then asked for many slots.
 */
export interface Interval {
  startAt: number;
  endAt: number;
}

/**
 * Bookings as objects, or packed as [start, end, start, end, ...]: what a month's read yields
 * without an object per booking (repo.ts holdingCapacity; the garbage of tens of thousands of
 * small objects cost more than the rest of an availability answer).
 */
export type Intervals = readonly Interval[] | Float64Array;

/**
 * "offset,length,offset,length" (non-negative integers, milliseconds; offsets from `base`) ->
 * packed [start, end, ...] intervals, without a string per number. Relative numbers make the text
 * a third the size of absolute instants: a month's text is read in one go and kept until parsed.
 */
export function parsePackedIntervals(text: string, base = 0): Float64Array {
  let count = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 44) count++;
  const out = new Float64Array(count & ~1);
  let k = 0;
  let value = 0;
  for (let i = 0; i <= text.length && k < out.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 44;
    if (c !== 44) {
      value = value * 10 + (c - 48);
      continue;
    }
    // Even places are offsets, odd ones lengths from the start just written.
    out[k] = k % 2 === 0 ? base + value : (out[k - 1] as number) + value;
    k++;
    value = 0;
  }
  return out;
}

export class DoorLoad {
  /** Change points, ascending; `level[i]` appointments are held during [times[i], times[i + 1]). */
  private readonly times: Float64Array;
  private readonly level: Int32Array;
  private readonly size: number;

  constructor(bookings: Intervals) {
    // Starts and ends sorted apart (typed arrays sort numerically and fast), then swept together;
    // at an instant where one appointment ends and another starts, the end counts first (half-open).
    const packed = bookings instanceof Float64Array;
    const total = packed ? bookings.length >> 1 : bookings.length;
    const starts = new Float64Array(total);
    const ends = new Float64Array(total);
    let n = 0;
    for (let k = 0; k < total; k++) {
      const startAt = packed ? (bookings[2 * k] as number) : (bookings[k] as Interval).startAt;
      const endAt = packed ? (bookings[2 * k + 1] as number) : (bookings[k] as Interval).endAt;
      if (!(endAt > startAt)) continue;
      starts[n] = startAt;
      ends[n] = endAt;
      n++;
    }
    const s = starts.subarray(0, n).sort();
    const e = ends.subarray(0, n).sort();
    this.times = new Float64Array(2 * n);
    this.level = new Int32Array(2 * n);
    let size = 0;
    let held = 0;
    let i = 0;
    let j = 0;
    while (j < n) {
      const t = i < n && (s[i] as number) < (e[j] as number) ? (s[i] as number) : (e[j] as number);
      while (j < n && e[j] === t) {
        held--;
        j++;
      }
      while (i < n && s[i] === t) {
        held++;
        i++;
      }
      this.times[size] = t;
      this.level[size] = held;
      size++;
    }
    this.size = size;
  }

  /** The most appointments held at any instant of [startAt, endAt). */
  peak(startAt: number, endAt: number): number {
    const { times, level, size } = this;
    // Last change point at or before startAt: its level is the one in force at startAt.
    let lo = 0;
    let hi = size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((times[mid] as number) <= startAt) lo = mid + 1;
      else hi = mid;
    }
    let i = lo - 1;
    let peak = i >= 0 ? (level[i] as number) : 0;
    for (i += 1; i < size && (times[i] as number) < endAt; i++) {
      if ((level[i] as number) > peak) peak = level[i] as number;
    }
    return peak;
  }
}
