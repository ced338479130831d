import type { ApplyOutcome } from '../../shared/sync/applier.js';
import type { BatchApplier } from '../../shared/sync/link-receiver.js';
import type { SyncApplier } from '../../shared/sync/sync-applier.js';

/**
 * The sites' batches this cloud node applied since it started (its status: which node does the
 * work), counted around the applier the sites' links call: a batch refused as a gap is not counted.
 * Its own file, so that a batch's path leaves cloud-sync.ts (the message router) once.
 */
export class CountingApplier implements BatchApplier {
  private readonly applied = { batches: 0, rows: 0 };

  constructor(private readonly applier: SyncApplier) {}

  figures(): { batches: number; rows: number } {
    return { ...this.applied };
  }

  async apply(peer: string, batch: Parameters<SyncApplier['apply']>[1]): Promise<ApplyOutcome> {
    const outcome = await this.applier.apply(peer, batch);
    if (!outcome.gap) {
      this.applied.batches += 1;
      this.applied.rows += outcome.applied;
    }
    return outcome;
  }

  async applyMany(peer: string, batches: Parameters<SyncApplier['applyMany']>[1]): Promise<ApplyOutcome[]> {
    const outcomes = await this.applier.applyMany(peer, batches);
    for (const o of outcomes.filter((o) => !o.gap)) {
      this.applied.batches += 1;
      this.applied.rows += o.applied;
    }
    return outcomes;
  }
}
