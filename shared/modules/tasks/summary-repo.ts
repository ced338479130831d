import { type RawBuilder, sql } from 'kysely';
import { scopeInList } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';
import { timeStats } from './samples.js';
import { UNFINISHED_TASK_STATUSES } from './state-machine.js';

/**
 * The figures of the task summaries of many yards (summary.ts) in four grouped statements,
 * however many yards: open tasks by yard and status (yard_task_queue); completions since each
 * yard's local midnight (yard_task_completed, one range per time zone's midnight); and the wait and
 * duration samples of the tasks started / completed since `since`: one index range per yard over
 * that bounded window, read from the index alone on SQLite (yard_task_started, yard_task_completed
 * hold both times of a sample: migration 0025), grouped in index order, with no sort: history is
 * never scanned, and no table row is read. SQL counts and sums each yard's samples and hands them
 * over as one row per yard; the p90 is ranked from them (samples.ts): ranking in SQL with window
 * functions sorted the whole window in a temporary B-tree (docs/performance.md).
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
      .where('status', 'in', UNFINISHED_TASK_STATUSES)
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
      .select(['yardId', ...samples(sql`started_at - created_at`)])
      .where('yardId', 'in', ids)
      .where('startedAt', '>=', since)
      .groupBy('yardId')
      .execute(),
    db
      .selectFrom('yardTask')
      .select(['yardId', ...samples(sql`completed_at - started_at`)])
      .where('yardId', 'in', ids)
      .where('completedAt', '>=', since)
      .where('startedAt', 'is not', null)
      .groupBy('yardId')
      .execute(),
  ]);
  return { open, completedToday, wait: timeStats(wait), duration: timeStats(duration) };
}

/**
 * A yard's samples as one row: how many, their sum, and the samples themselves as one text
 * (string_agg: PostgreSQL's aggregate, which SQLite 3.44+ also has), in index order, unsorted. A
 * row per yard rather than per sample: each row answered costs an object on the event loop.
 */
function samples(ms: RawBuilder<unknown>) {
  return [
    sql<number>`count(*)`.as('n'),
    sql<number>`sum(${ms})`.as('total'),
    sql<string>`string_agg(CAST(${ms} AS TEXT), ',')`.as('samples'),
  ];
}
