import { DateTime } from 'luxon';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import type { DriverState } from './dispatch.js';
import type { TaskSummaryT } from './schema.js';
import { summaryFigures } from './summary-repo.js';

const DAY_MS = 24 * 60 * 60 * 1000;

type SummaryYard = { id: string; code: string; timeZone: string };

/**
 * The task figures of these yards, in the yards' order. The same four grouped statements for one
 * yard or two hundred (summary-repo.ts, run by the read pool off the event loop): open tasks now,
 * completions since each yard's local midnight, and wait / duration over the last 24 h, each an
 * index range of that window only; the p90s are ranked in SQL, so neither the history nor the
 * day's samples are read into Node.
 */
export async function yardSummaries(
  deps: Pick<CoreParts, 'clock' | 'reads'>,
  yards: SummaryYard[],
  driversOf: (yardId: string) => DriverState[],
): Promise<TaskSummaryT[]> {
  if (yards.length === 0) return [];
  const now = deps.clock.now();
  const dayStart = (y: SummaryYard) =>
    DateTime.fromMillis(now, { zone: y.timeZone }).startOf('day').toMillis();
  // In the read pool: four statements, each at its own snapshot (figures, not a ledger).
  const figures = await summaryFigures(
    deps.reads.kysely,
    yards.map((y) => ({ id: y.id, dayStart: dayStart(y) })),
    now - DAY_MS,
  );
  return yards.map((yard) => {
    const counts = { QUEUED: 0, ASSIGNED: 0, IN_PROGRESS: 0 };
    for (const r of figures.open) {
      if (r.yardId === yard.id && r.status in counts) counts[r.status as keyof typeof counts] = Number(r.n);
    }
    const driverCounts = { available: 0, busy: 0, offline: 0 };
    for (const d of driversOf(yard.id)) driverCounts[d.availability]++;
    return {
      yardId: yard.id,
      yardCode: yard.code,
      timeZone: yard.timeZone,
      at: toIso(now),
      counts,
      completedToday: Number(figures.completedToday.find((r) => r.yardId === yard.id)?.n ?? 0),
      wait: stat(figures.wait.find((r) => r.yardId === yard.id)),
      duration: stat(figures.duration.find((r) => r.yardId === yard.id)),
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
