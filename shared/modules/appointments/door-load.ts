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
  private readonly times: number[] = [];
  private readonly level: number[] = [];

  constructor(bookings: readonly Interval[]) {
    const deltas = new Map<number, number>();
    for (const b of bookings) {
      if (!(b.endAt > b.startAt)) continue;
      deltas.set(b.startAt, (deltas.get(b.startAt) ?? 0) + 1);
      deltas.set(b.endAt, (deltas.get(b.endAt) ?? 0) - 1);
    }
    let held = 0;
    for (const t of [...deltas.keys()].sort((a, b) => a - b)) {
      held += deltas.get(t) as number;
      this.times.push(t);
      this.level.push(held);
    }
  }

  /** The most appointments held at any instant of [startAt, endAt). */
  peak(startAt: number, endAt: number): number {
    const { times, level } = this;
    // Last change point at or before startAt: its level is the one in force at startAt.
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((times[mid] as number) <= startAt) lo = mid + 1;
      else hi = mid;
    }
    let i = lo - 1;
    let peak = i >= 0 ? (level[i] as number) : 0;
    for (i += 1; i < times.length && (times[i] as number) < endAt; i++) {
      if ((level[i] as number) > peak) peak = level[i] as number;
    }
    return peak;
  }
}
