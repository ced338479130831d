import { DateTime } from 'luxon';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import type { DriverState } from './dispatch.js';
import type { TaskSummaryT } from './schema.js';
import { summaryFigures } from './summary-repo.js';

const DAY_MS = 24 * 60 * 60 * 1000;

type SummaryYard = { id: string; code: string; timeZone: string };

/**
 * The task figures of these yards, in the yards' order. The same four statements for one yard or
 * two hundred (summary-repo.ts, run by the read pool off the event loop): open tasks now,
 * completions since each yard's local midnight, and wait / duration over the last 24 h, each an
 * index range of that window only (the samples from the index alone, never the history); the
 * p90s are ranked here from each yard's day of samples (samples.ts).
 */
export async function yardSummaries(
  deps: Pick<CoreParts, 'clock' | 'reads'>,
  yards: SummaryYard[],
  drivers: Promise<(yardId: string) => DriverState[]>,
): Promise<TaskSummaryT[]> {
  if (yards.length === 0) return [];
  const now = deps.clock.now();
  // Luxon's zone arithmetic is slow next to the rest: once per time zone, not per yard.
  const midnights = new Map<string, number>();
  const dayStart = (y: SummaryYard) => {
    let at = midnights.get(y.timeZone);
    if (at === undefined) {
      at = DateTime.fromMillis(now, { zone: y.timeZone }).startOf('day').toMillis();
      midnights.set(y.timeZone, at);
    }
    return at;
  };
  // In the read pool: four statements, each at its own snapshot (figures, not a ledger).
  const [figures, driversOf] = await Promise.all([
    summaryFigures(
      deps.reads.kysely,
      yards.map((y) => ({ id: y.id, dayStart: dayStart(y) })),
      now - DAY_MS,
    ),
    drivers,
  ]);
  const open = new Map<string, TaskSummaryT['counts']>();
  for (const r of figures.open) {
    const counts = open.get(r.yardId) ?? { QUEUED: 0, ASSIGNED: 0, IN_PROGRESS: 0 };
    if (r.status in counts) counts[r.status as keyof typeof counts] = Number(r.n);
    open.set(r.yardId, counts);
  }
  const completedToday = new Map(figures.completedToday.map((r) => [r.yardId, Number(r.n)]));
  const wait = new Map(figures.wait.map((r) => [r.yardId, r]));
  const duration = new Map(figures.duration.map((r) => [r.yardId, r]));
  const at = toIso(now);
  return yards.map((yard) => {
    const driverCounts = { available: 0, busy: 0, offline: 0 };
    for (const d of driversOf(yard.id)) driverCounts[d.availability]++;
    return {
      yardId: yard.id,
      yardCode: yard.code,
      timeZone: yard.timeZone,
      at,
      counts: open.get(yard.id) ?? { QUEUED: 0, ASSIGNED: 0, IN_PROGRESS: 0 },
      completedToday: completedToday.get(yard.id) ?? 0,
      wait: stat(wait.get(yard.id)),
      duration: stat(duration.get(yard.id)),
      drivers: driverCounts,
    };
  });
}

/** Mean and p90 in seconds, one decimal; null without samples. */
function stat(row: { n: number; total: number; p90: number | null } | undefined): {
  count: number;
  meanSec: number | null;
  p90Sec: number | null;
} {
  const count = Number(row?.n ?? 0);
  if (!row || count === 0) return { count: 0, meanSec: null, p90Sec: null };
  return {
    count,
    meanSec: toSec(Number(row.total) / count),
    p90Sec: row.p90 === null ? null : toSec(Number(row.p90)),
  };
}

function toSec(ms: number): number {
  return Math.round(ms / 100) / 10;
}
