/**
 * On-time, no-show, wait and turn figures per carrier and per door (docs/domain.md "Appointments",
 * "Wait and detention"; docs/api.md GET /api/appointment/summary). Pure: rows in, figures out.
 *
 * What counts, where the domain text leaves a choice:
 * - An appointment cancelled before its truck arrived is not counted (it was never expected);
 *   one cancelled after its arrival (turned away) keeps its arrival class.
 * - early / onTime / late: by the arrival class recorded at check-in (lateGraceMinutes). A no-show
 *   that arrived later is late, not a no-show (its status is arrived).
 * - noShows: appointments whose status is no_show.
 * - onTimePercent = onTime / (arrived + noShows) x 100, one decimal: of the appointments whose
 *   outcome is known, the share kept on time (a no-show was not kept on time; an early truck is
 *   not on time either, it is counted as early). null when there is none.
 * - wait and turn p50 / p90: nearest rank over the appointments that have the figure (sorted
 *   ascending, the value at rank ceil(p / 100 x n)), in minutes; null when none has it.
 */
import { asMinutes, type DetentionTimes, turnOf, waitOf } from './detention.js';
import { compareDoors } from './door-order.js';
import type { AppointmentStatus } from './status.js';

export interface SummaryRow extends DetentionTimes {
  carrierId: string;
  carrierName: string;
  doorId: string;
  doorName: string;
  status: AppointmentStatus;
}

export interface Figures {
  appointments: number;
  arrived: number;
  early: number;
  onTime: number;
  late: number;
  noShows: number;
  onTimePercent: number | null;
  waitP50Minutes: number | null;
  waitP90Minutes: number | null;
  turnP50Minutes: number | null;
  turnP90Minutes: number | null;
}

export interface AppointmentSummary {
  all: Figures;
  byCarrier: Array<{ carrierId: string; carrierName: string } & Figures>;
  byDoor: Array<{ doorId: string; doorName: string } & Figures>;
}

/** Nearest-rank percentile of `values` (any order); null for none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((p / 100) * sorted.length) - 1] as number;
}

/** Whether the appointment counts at all: not one cancelled before its truck came. */
export function counted(row: Pick<SummaryRow, 'status' | 'arrivedAt'>): boolean {
  return row.status !== 'cancelled' || row.arrivedAt !== null;
}

/** The figures of a group of appointments (those not counted are skipped). */
export function figuresOf(rows: readonly SummaryRow[]): Figures {
  let appointments = 0;
  let early = 0;
  let onTime = 0;
  let late = 0;
  let noShows = 0;
  const waits: number[] = [];
  const turns: number[] = [];
  for (const row of rows) {
    if (!counted(row)) continue;
    appointments++;
    if (row.arrivedAt !== null) {
      if (row.arrival === 'early') early++;
      else if (row.arrival === 'late') late++;
      else onTime++;
    } else if (row.status === 'no_show') noShows++;
    const wait = waitOf(row);
    if (wait !== null) waits.push(wait);
    const turn = turnOf(row);
    if (turn !== null) turns.push(turn);
  }
  const arrived = early + onTime + late;
  const known = arrived + noShows;
  return {
    appointments,
    arrived,
    early,
    onTime,
    late,
    noShows,
    onTimePercent: known === 0 ? null : Math.round((onTime / known) * 1000) / 10,
    waitP50Minutes: asMinutes(percentile(waits, 50)),
    waitP90Minutes: asMinutes(percentile(waits, 90)),
    turnP50Minutes: asMinutes(percentile(turns, 50)),
    turnP90Minutes: asMinutes(percentile(turns, 90)),
  };
}

const byName = new Intl.Collator('en', { sensitivity: 'base' });

/** The figures of all rows, per carrier (by name) and per door (natural order: Door 2 before Door 10). */
export function summarize(rows: readonly SummaryRow[]): AppointmentSummary {
  const carriers = groupBy(rows, (r) => r.carrierId);
  const doors = groupBy(rows, (r) => r.doorId);
  return {
    all: figuresOf(rows),
    byCarrier: [...carriers.values()]
      .map((group) => {
        const first = group[0] as SummaryRow;
        return { carrierId: first.carrierId, carrierName: first.carrierName, ...figuresOf(group) };
      })
      .filter((g) => g.appointments > 0)
      .sort((a, b) => byName.compare(a.carrierName, b.carrierName) || cmp(a.carrierId, b.carrierId)),
    byDoor: [...doors.values()]
      .map((group) => {
        const first = group[0] as SummaryRow;
        return { doorId: first.doorId, doorName: first.doorName, ...figuresOf(group) };
      })
      .filter((g) => g.appointments > 0)
      .sort((a, b) => compareDoors({ id: a.doorId, name: a.doorName }, { id: b.doorId, name: b.doorName })),
  };
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
