import { scopeInList } from '../../auth/principal.js';
import type { Kdb } from '../../db/database.js';
import { Id } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';
import { UNFINISHED_TASK_STATUSES } from '../tasks/state-machine.js';

/**
 * The all-yards overview of the Yard screen (docs/web-apps.md "Yard"): per yard only what its row
 * shows, in one request. It replaced three all-yards answers read for a few numbers each: the
 * trailer figures (half a megabyte at 200 sites, by carrier), the task summaries (p90s and drivers
 * of every yard) and the day's movements.
 */
export const YardOverviewOut = z
  .object({
    items: z.array(
      z.object({
        yardId: Id,
        yardCode: z.string(),
        trailersInYard: z.number().int(),
        movementsToday: z
          .number()
          .int()
          .openapi({ description: "check-ins and check-outs during the yard's local day (its time zone)" }),
        openTasks: z.number().int().openapi({ description: 'yard tasks queued, assigned or in progress' }),
      }),
    ),
  })
  .openapi('DashboardYardOverview');

export type YardOverviewOutT = z.infer<typeof YardOverviewOut>;

/** Open tasks per yard: one grouped statement on the yard_task_queue index (yard, status). */
export async function openTaskCounts(db: Kdb, yardIds: string[]): Promise<Map<string, number>> {
  if (yardIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('yardTask')
    .select('yardId')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('yardId', 'in', scopeInList(yardIds))
    .where('status', 'in', UNFINISHED_TASK_STATUSES)
    .groupBy('yardId')
    .execute();
  return new Map(rows.map((r) => [r.yardId, Number(r.n)]));
}
