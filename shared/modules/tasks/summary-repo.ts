import { type SelectQueryBuilder, sql } from 'kysely';
import { scopeInList } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';
import type { DB } from '../../db/tables.js';

/**
 * The figures of the task summaries of many yards (summary.ts) in four grouped statements,
 * however many yards: open tasks by yard and status (yard_task_queue); completions since each
 * yard's local midnight (yard_task_completed, one range per time zone's midnight); and wait and
 * duration (count, sum, p90) over the tasks started / completed since `since` (yard_task_started,
 * yard_task_completed). The p90 is ranked in SQL (window functions, which SQLite and PostgreSQL
 * both run) over that bounded window only: history is never scanned, and no sample reaches Node.
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
    timeStats(
      db,
      db
        .selectFrom('yardTask')
        .select(['yardId', sql<number>`started_at - created_at`.as('ms')])
        .where('yardId', 'in', ids)
        .where('startedAt', '>=', since),
    ),
    timeStats(
      db,
      db
        .selectFrom('yardTask')
        .select(['yardId', sql<number>`completed_at - started_at`.as('ms')])
        .where('yardId', 'in', ids)
        .where('completedAt', '>=', since)
        .where('startedAt', 'is not', null),
    ),
  ]);
  return { open, completedToday, wait, duration };
}

/**
 * Per yard: how many samples, their sum and their p90 (nearest rank: the ceil(0.9 n)-th smallest,
 * the ceil taken in integers as (9 n + 9) / 10), in one statement.
 */
function timeStats(
  db: Kdb,
  samples: SelectQueryBuilder<DB, 'yardTask', { yardId: string; ms: number }>,
): Promise<Array<{ yardId: string; n: number; total: number; p90: number | null }>> {
  const yard = sql.ref('samples.yardId');
  const ms = sql.ref('samples.ms');
  const ranked = db
    .selectFrom(samples.as('samples'))
    .select([
      'samples.yardId',
      'samples.ms',
      sql<number>`row_number() over (partition by ${yard} order by ${ms})`.as('rn'),
      sql<number>`count(*) over (partition by ${yard})`.as('cnt'),
    ])
    .as('ranked');
  return db
    .selectFrom(ranked)
    .select((eb) => [
      'ranked.yardId',
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>('ranked.ms').as('total'),
      sql<
        number | null
      >`max(case when ${sql.ref('ranked.rn')} = (9 * ${sql.ref('ranked.cnt')} + 9) / 10 then ${sql.ref('ranked.ms')} end)`.as(
        'p90',
      ),
    ])
    .groupBy('ranked.yardId')
    .execute();
}
