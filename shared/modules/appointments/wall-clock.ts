/**
 * Yard-local wall clock <-> instants for the booking rules (docs/domain.md "Booking rules"). The
 * slot grid and the opening hours are wall-clock times of a yard-local date; a DST day has its
 * real length, so a wall time can name no instant (the spring-forward gap) or two (the fall-back
 * repeated hour). luxon knows the zone's offsets; the arithmetic stays in epoch milliseconds so a
 * month of slots costs a few offset look-ups per day, not one per slot.
 */
import { IANAZone } from 'luxon';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** No zone is further than this from UTC, so a local date's instants lie within this of its naive UTC day. */
const MAX_OFFSET = 14 * 60 * MINUTE;

export type LocalDate = string; // YYYY-MM-DD

/** Epoch days of a calendar date (no zone involved). */
export function dayNumber(date: LocalDate): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d) / DAY;
}

export function dateOfDayNumber(n: number): LocalDate {
  return new Date(n * DAY).toISOString().slice(0, 10);
}

/** ISO weekday of a calendar date: 1 = Monday ... 7 = Sunday. */
export function isoWeekday(n: number): number {
  return ((new Date(n * DAY).getUTCDay() + 6) % 7) + 1;
}

/** "HH:MM" -> minutes after midnight (24:00 = 1440). */
export function wallMinutes(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return Math.min(h * 60 + m, 1440);
}

const clocks = new Map<string, YardClock>();

/** The clock of a zone, shared so its per-day offsets are looked up once per process. */
export function yardClock(timeZone: string): YardClock {
  let clock = clocks.get(timeZone);
  if (!clock) {
    clock = new YardClock(timeZone);
    clocks.set(timeZone, clock);
  }
  return clock;
}

export class YardClock {
  private readonly zone: IANAZone;
  private readonly dayOffsets = new Map<number, [number, number]>();

  constructor(readonly timeZone: string) {
    this.zone = IANAZone.create(timeZone);
    if (!this.zone.isValid) throw new RangeError(`unknown time zone ${timeZone}`);
  }

  /** The zone's UTC offset at an instant, in minutes. */
  offset(t: number): number {
    return this.zone.offset(t);
  }

  /**
   * The zone's offset at an instant through the per-day cache: one look-up per day unless the
   * offset changes near it (luxon's look-up formats a date each time; a month of slots needs
   * thousands).
   */
  offsetFast(t: number): number {
    const [before, after] = this.offsetsAround(Math.floor(t / DAY));
    return before === after ? before : this.offset(t);
  }

  /**
   * An instant as ISO 8601 in the yard's zone, with its offset: 2026-11-01T01:30:00-05:00 (a
   * fall-back day's repeated hour shows which one). Milliseconds only when there are some.
   */
  iso(t: number): string {
    const offset = this.offsetFast(t);
    const local = new Date(t + offset * MINUTE).toISOString();
    const abs = Math.abs(offset);
    const sign = offset < 0 ? '-' : '+';
    const hh = String(Math.floor(abs / 60)).padStart(2, '0');
    const mm = String(abs % 60).padStart(2, '0');
    return `${t % 1000 === 0 ? local.slice(0, 19) : local.slice(0, 23)}${sign}${hh}:${mm}`;
  }

  /** The yard-local date of an instant, as epoch days. */
  dayOf(t: number): number {
    return Math.floor((t + this.offsetFast(t) * MINUTE) / DAY);
  }

  /** The yard-local wall clock of an instant, in minutes after midnight (fractions for seconds). */
  wallOf(t: number): number {
    const local = t + this.offsetFast(t) * MINUTE;
    return (local - Math.floor(local / DAY) * DAY) / MINUTE;
  }

  /**
   * The zone's offset in minutes throughout local date `day` when it does not change near it (the
   * wall clock of minute m is then the instant day + m - offset), else null: instants() decides.
   */
  uniformOffset(day: number): number | null {
    const [before, after] = this.offsetsAround(day);
    return before === after ? before : null;
  }

  /**
   * The instants at which the wall clock of local date `day` reads `minute`, earliest first: one on
   * an ordinary day, none in a spring-forward gap, two in a fall-back repeated hour.
   */
  instants(day: number, minute: number): number[] {
    const naive = day * DAY + minute * MINUTE;
    const [before, after] = this.offsetsAround(day);
    if (before === after) return [naive - before * MINUTE];
    const out: number[] = [];
    for (const o of [before, after]) {
      const t = naive - o * MINUTE;
      if (this.offset(t) === o && !out.includes(t)) out.push(t);
    }
    return out.sort((a, b) => a - b);
  }

  /**
   * An opening-hours boundary as an instant. A `from` opens at the first moment the clock reads
   * the time; a `to` closes at the last one (a yard open until 02:00 on a fall-back day stays open
   * through both 01:00-02:00 hours). In a spring-forward gap both are the moment the clock jumps
   * past the time. 24:00 is the next date's midnight.
   */
  boundary(day: number, minute: number, edge: 'from' | 'to'): number {
    if (minute >= 1440) return this.boundary(day + 1, minute - 1440, edge);
    const found = this.instants(day, minute);
    if (found.length > 0) return edge === 'from' ? (found[0] as number) : (found[found.length - 1] as number);
    return this.jumpInstant(day, minute);
  }

  /** The gap's transition: the first instant whose wall clock has passed `minute`. */
  private jumpInstant(day: number, minute: number): number {
    const naive = day * DAY + minute * MINUTE;
    const [before, after] = this.offsetsAround(day);
    // In a gap the clock moves forward: with the later offset the instant falls before the jump,
    // with the earlier one after it. Bisect to the millisecond where the offset changes.
    let lo = naive - after * MINUTE;
    let hi = naive - before * MINUTE;
    if (lo > hi) [lo, hi] = [hi, lo];
    const loOffset = this.offset(lo);
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (this.offset(mid) === loOffset) lo = mid;
      else hi = mid;
    }
    return hi;
  }

  /** The offsets in force just before and just after local date `day` (equal: no change near it). */
  private offsetsAround(day: number): [number, number] {
    let o = this.dayOffsets.get(day);
    if (!o) {
      o = [this.offset(day * DAY - MAX_OFFSET), this.offset((day + 1) * DAY + MAX_OFFSET)];
      this.dayOffsets.set(day, o);
    }
    return o;
  }
}
