import { DateTime } from 'luxon';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import type { DriverState } from './dispatch.js';
import { taskRepo } from './repo.js';
import type { TaskSummaryT } from './schema.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * One yard's task figures. Every query is an index range over open tasks, today or the last
 * 24 h (yard_task_queue, yard_task_completed, yard_task_started): history is never scanned.
 */
export async function yardSummary(
  deps: Pick<CoreParts, 'clock' | 'kysely'>,
  yard: { id: string; code: string; timeZone: string },
  drivers: DriverState[],
): Promise<TaskSummaryT> {
  const now = deps.clock.now();
  const dayStart = DateTime.fromMillis(now, { zone: yard.timeZone }).startOf('day').toMillis();
  const since = now - DAY_MS;
  const { open, completedToday, started, completed } = await taskRepo.summaryFigures(deps.kysely, yard.id, {
    dayStart,
    since,
  });
  const counts = { QUEUED: 0, ASSIGNED: 0, IN_PROGRESS: 0 };
  for (const r of open) counts[r.status as keyof typeof counts] = Number(r.n);
  const driverCounts = { available: 0, busy: 0, offline: 0 };
  for (const d of drivers) driverCounts[d.availability]++;
  return {
    yardId: yard.id,
    yardCode: yard.code,
    timeZone: yard.timeZone,
    at: toIso(now),
    counts,
    completedToday: Number(completedToday.n),
    wait: stat(started.map((r) => (r.startedAt ?? 0) - r.createdAt)),
    duration: stat(
      completed.filter((r) => r.startedAt !== null).map((r) => (r.completedAt ?? 0) - (r.startedAt ?? 0)),
    ),
    drivers: driverCounts,
  };
}

/** Mean and p90 (nearest rank) in seconds, one decimal; null without samples. */
export function stat(samplesMs: number[]): { count: number; meanSec: number | null; p90Sec: number | null } {
  if (samplesMs.length === 0) return { count: 0, meanSec: null, p90Sec: null };
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, v) => sum + v, 0) / sorted.length;
  const p90 = sorted[Math.ceil(0.9 * sorted.length) - 1] ?? 0;
  return { count: sorted.length, meanSec: toSec(mean), p90Sec: toSec(p90) };
}

function toSec(ms: number): number {
  return Math.round(ms / 100) / 10;
}
