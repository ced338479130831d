/**
 * How many appointments a door holds over time (docs/domain.md "Booking rules": a door never holds
 * more than its `capacity` at any instant; intervals are half-open, so one ending at a start does
 * not overlap it). Built once per door from its bookings, then asked for many slots.
 */
export interface Interval {
  startAt: number;
  endAt: number;
}

export class DoorLoad {
  /** Change points, ascending; `level[i]` appointments are held during [times[i], times[i + 1]). */
  private readonly times: Float64Array;
  private readonly level: Int32Array;
  private readonly size: number;

  constructor(bookings: readonly Interval[]) {
    // Starts and ends sorted apart (typed arrays sort numerically and fast), then swept together;
    // at an instant where one appointment ends and another starts, the end counts first (half-open).
    const starts = new Float64Array(bookings.length);
    const ends = new Float64Array(bookings.length);
    let n = 0;
    for (const b of bookings) {
      if (!(b.endAt > b.startAt)) continue;
      starts[n] = b.startAt;
      ends[n] = b.endAt;
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
