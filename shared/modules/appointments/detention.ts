/**
 * Wait and detention (docs/domain.md "Appointments", "Wait and detention"): the facility's record
 * of how long a carrier's truck was held. Pure: epoch milliseconds in, milliseconds out, no clock
 * (an appointment still under way has no turn or detention yet, not one "so far").
 *
 *   clock start = startAt when the truck arrived early or on time, arrivedAt when it arrived late
 *   wait        = max(0, dockedAt - clock start)
 *   turn        = departedAt - arrivedAt
 *   detention   = max(0, departedAt - clock start - freeTimeMinutes)
 *
 * A time that has not happened yet makes the figures that need it null: no arrival, no clock
 * start (and so nothing else); not docked, no wait; not departed, no turn and no detention.
 * An early truck's clock starts at its booked time: the carrier is not owed the time it chose to
 * come early. The arrival class (early / on time / late) is the one recorded at check-in by the
 * lateGraceMinutes rule (arrivals.ts), so a truck within the grace starts at startAt.
 */

export interface DetentionTimes {
  startAt: number;
  arrivedAt: number | null;
  arrival: 'early' | 'on_time' | 'late' | null;
  dockedAt: number | null;
  departedAt: number | null;
}

export interface DetentionFigures {
  clockStart: number | null;
  wait: number | null;
  turn: number | null;
  detention: number | null;
}

const MINUTE = 60_000;

/** When the carrier's clock starts: startAt unless the truck arrived late, then its arrival. */
export function clockStart(a: Pick<DetentionTimes, 'startAt' | 'arrivedAt' | 'arrival'>): number | null {
  if (a.arrivedAt === null) return null;
  return a.arrival === 'late' ? a.arrivedAt : a.startAt;
}

/** max(0, dockedAt - clock start); null until arrived and docked. */
export function waitOf(a: DetentionTimes): number | null {
  const start = clockStart(a);
  if (start === null || a.dockedAt === null) return null;
  return Math.max(0, a.dockedAt - start);
}

/** departedAt - arrivedAt; null until arrived and departed. */
export function turnOf(a: DetentionTimes): number | null {
  if (a.arrivedAt === null || a.departedAt === null) return null;
  return a.departedAt - a.arrivedAt;
}

/** max(0, departedAt - clock start - free time); null until arrived and departed. */
export function detentionOf(a: DetentionTimes, freeTimeMinutes: number): number | null {
  const start = clockStart(a);
  if (start === null || a.departedAt === null) return null;
  return Math.max(0, a.departedAt - start - freeTimeMinutes * MINUTE);
}

/** The four figures of one appointment. */
export function detentionFigures(a: DetentionTimes, freeTimeMinutes: number): DetentionFigures {
  return {
    clockStart: clockStart(a),
    wait: waitOf(a),
    turn: turnOf(a),
    detention: detentionOf(a, freeTimeMinutes),
  };
}

/**
 * Milliseconds as minutes for people and files: two decimals (a gate time has seconds; 0.02 min is
 * about a second), null stays null. The figures themselves stay exact in milliseconds.
 */
export function asMinutes(ms: number | null): number | null {
  return ms === null ? null : Math.round(ms / 600) / 100;
}
