import type { Hlc } from './hlc.js';
import { RowRejected } from './row-errors.js';

/** A received change as far as its clocks go: the change's hlc, the row's own and its field clocks. */
export interface StampedChange {
  entity: string;
  id: string;
  hlc: string;
  data: Record<string, unknown>;
}

/**
 * A change stamped further ahead of our clock than the allowed skew is refused: applied, its
 * clocks would win every later merge, and our clock would follow it into the future (docs/sync.md
 * "Clock bounds"). The change's hlc, the row's own hlc and each of its per-field clocks are checked:
 * a row whose hlc is fine but one of whose field clocks is far ahead would win that field forever.
 * Throws RowRejected `[clock-ahead]`, or `[malformed]` for a clock that does not parse.
 */
export function assertClockWithinSkew(hlc: Pick<Hlc, 'aheadBy' | 'maxAheadMs'>, row: StampedChange): void {
  const clocks = [row.hlc];
  if (typeof row.data.hlc === 'string') clocks.push(row.data.hlc);
  if (typeof row.data.fieldHlc === 'string') {
    let fields: unknown;
    try {
      fields = JSON.parse(row.data.fieldHlc);
    } catch {
      throw new RowRejected(`[malformed] fieldHlc of ${row.entity} ${row.id} is not JSON`);
    }
    if (fields && typeof fields === 'object') for (const v of Object.values(fields)) clocks.push(String(v));
  }
  for (const stamp of clocks) {
    let ahead: number;
    try {
      ahead = hlc.aheadBy(stamp);
    } catch {
      throw new RowRejected(`[malformed] ${row.entity} ${row.id} carries a malformed clock "${stamp}"`);
    }
    if (ahead > 0) {
      throw new RowRejected(
        `[clock-ahead] ${row.entity} ${row.id} is stamped ${Math.round(ahead / 1000)} s ahead of this side's ` +
          `clock (at most ${Math.round(hlc.maxAheadMs / 1000)} s allowed): fix the sender's clock, then retry`,
      );
    }
  }
}
