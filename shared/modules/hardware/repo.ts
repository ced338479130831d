import type { Selectable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { GateActuationTable, GateTable } from '../../db/tables.js';

export type GateActuationRow = Selectable<GateActuationTable>;
export type GateRow = Selectable<GateTable>;

/** Reads for gate actuation. Actuation rows are written through core.changes in the service. */
export class HardwareRepo {
  constructor(private readonly db: Kdb) {}

  gateById(id: string): Promise<GateRow | undefined> {
    return this.db.selectFrom('gate').selectAll().where('id', '=', id).executeTakeFirst();
  }

  gatesWithRelay(): Promise<GateRow[]> {
    return this.db.selectFrom('gate').selectAll().where('relay', 'is not', null).orderBy('id').execute();
  }

  /** Pulses (ok or fault) of the gate since `since`, oldest first; refusals do not count. */
  pulsesSince(gateId: string, since: number): Promise<Array<{ at: number }>> {
    return this.db
      .selectFrom('gateActuation')
      .select('at')
      .where('gateId', '=', gateId)
      .where('at', '>', since)
      .where('result', '!=', 'refused')
      .orderBy('at')
      .execute();
  }

  /** Newest first by (at, id); keyset paging after `after`. */
  list(opts: {
    gateId: string;
    limit: number;
    after?: { at: number; id: string } | undefined;
    result?: GateActuationRow['result'] | undefined;
  }): Promise<GateActuationRow[]> {
    let q = this.db
      .selectFrom('gateActuation')
      .selectAll()
      .where('gateId', '=', opts.gateId)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(opts.limit + 1);
    const after = opts.after;
    if (after) {
      q = q.where('at', '<=', after.at);
      q = q.where((eb) => eb.or([eb('at', '<', after.at), eb('id', '<', after.id)]));
    }
    if (opts.result) q = q.where('result', '=', opts.result);
    return q.execute();
  }

  latestPerGate(gateIds: string[]): Promise<GateActuationRow[]> {
    if (gateIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('gateActuation as a')
      .selectAll('a')
      .where('a.gateId', 'in', gateIds)
      .where('a.at', '=', (eb) =>
        eb
          .selectFrom('gateActuation as b')
          .select((b) => b.fn.max('b.at').as('m'))
          .whereRef('b.gateId', '=', 'a.gateId'),
      )
      .execute();
  }

  byMovement(movementIds: string[]): Promise<Array<{ id: string; movementId: string | null }>> {
    if (movementIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('gateActuation')
      .select(['id', 'movementId'])
      .where('movementId', 'in', movementIds)
      .execute();
  }
}
