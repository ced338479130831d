import { sql } from 'kysely';
import { scopeInList } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';
import { timeStats } from './samples.js';

/**
 * The figures of the task summaries of many yards (summary.ts) in four grouped statements,
 * however many yards: open tasks by yard and status (yard_task_queue); completions since each
 * yard's local midnight (yard_task_completed, one range per time zone's midnight); and the wait and
 * duration samples of the tasks started / completed since `since`. Each sample is read from the
 * index alone (yard_task_started, yard_task_completed hold both of its times: migration 0025), one
 * index range per yard over that bounded window, with no sort: history is never scanned, and no
 * table row is read. Count, sum and p90 are taken here (samples.ts) from a yard's day of samples,
 * a few dozen numbers to a few thousand, cheaper than ranking them in SQL (window functions sort
 * the whole window in a temporary B-tree: docs/performance.md).
 */
export async function summaryFigures(db: Kdb, yards: Array<{ id: string; dayStart: number }>, since: number) {
  const ids = scopeInList(yards.map((y) => y.id));
  const byDayStart = new Map<number, string[]>();
  for (const y of yards) byDayStart.set(y.dayStart, [...(byDayStart.get(y.dayStart) ?? []), y.id]);
  const [open, completedToday, wait, duration] = await Promise.all([
    db
      .selectFrom('yardTask')
      .select(['yardId', 'status'])
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('yardId', 'in', ids)
      .where('status', 'in', ['QUEUED', 'ASSIGNED', 'IN_PROGRESS'])
      .groupBy(['yardId', 'status'])
      .execute(),
    db
      .selectFrom('yardTask')
      .select('yardId')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) =>
        eb.or(
          [...byDayStart].map(([dayStart, yardIds]) =>
            eb.and([eb('yardId', 'in', yardIds), eb('completedAt', '>=', dayStart)]),
          ),
        ),
      )
      .groupBy('yardId')
      .execute(),
    db
      .selectFrom('yardTask')
      .select(['yardId', sql<number>`started_at - created_at`.as('ms')])
      .where('yardId', 'in', ids)
      .where('startedAt', '>=', since)
      .execute(),
    db
      .selectFrom('yardTask')
      .select(['yardId', sql<number>`completed_at - started_at`.as('ms')])
      .where('yardId', 'in', ids)
      .where('completedAt', '>=', since)
      .where('startedAt', 'is not', null)
      .execute(),
  ]);
  return { open, completedToday, wait: timeStats(wait), duration: timeStats(duration) };
}
