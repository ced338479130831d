import type { Kdb } from '../../db/database.js';
import type { RowObservers } from '../../sync/row-observers.js';
import type { MovementRepo, VisitRow } from './repo.js';

type Unit = { kind: 'trailer'; trailerId: string } | { kind: 'truck'; truckId: string };

/**
 * The visits a gate movement opens and closes, in the movement's transaction. Visits are derived
 * rows, not synced: their observers (read models such as the dashboard's rollups) are told here, as
 * ChangeCapture tells them of synced rows and the sync applier of the visits it derives.
 */
export class VisitWrites {
  constructor(
    /** The movement's transaction, which the repo writes in too (observers on PostgreSQL write through it). */
    private readonly trx: Kdb,
    private readonly repo: MovementRepo,
    private readonly observers: RowObservers,
  ) {}

  async open(visit: Omit<VisitRow, 'outMovementId' | 'outAt'>): Promise<void> {
    await this.repo.openVisit(visit);
    await this.observers.notifyIn(this.trx, 'visit', undefined, {
      ...visit,
      outMovementId: null,
      outAt: null,
    });
  }

  /** Closes the unit's open visits (a trailer's, or a truck's own truck visits). */
  async close(unit: Unit, outMovementId: string | null, outAt: number): Promise<void> {
    for (const closed of await this.repo.closeVisits(unit, outMovementId, outAt)) {
      await this.observers.notifyIn(
        this.trx,
        'visit',
        { ...closed, outMovementId: null, outAt: null },
        closed,
      );
    }
  }
}
