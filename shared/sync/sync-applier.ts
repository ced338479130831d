import type { PostgresDatabase } from '../db/database.js';
import type { AdoptionPlan } from './adoption.js';
import { type ApplyOutcome, ChangeApplier } from './applier.js';
import { PostgresChangeApplier } from './applier-postgres.js';
import type { ApplierDeps, ApplierOptions } from './apply-work.js';
import { applySlices, exclusive } from './exclusive.js';
import type { Batch } from './protocol.js';

/**
 * The change applier as the sync runtimes and the API call it, on either database: every call a
 * promise. On SQLite the synchronous ChangeApplier runs inside exclusive() (the connection is the
 * Kysely pool's one connection); on PostgreSQL the PostgresChangeApplier runs its own transaction.
 */
export interface SyncApplier {
  apply(peer: string, batch: Batch): Promise<ApplyOutcome>;
  applyMany(peer: string, batches: readonly Batch[]): Promise<ApplyOutcome[]>;
  retryDeadLetters(filter?: { peer?: string; ids?: number[] }): Promise<{ retried: number; applied: number }>;
  adoptDeadLetters(peer: string, ids: readonly number[]): Promise<{ adopted: number; applied: number }>;
  previewAdoption(peer: string): Promise<AdoptionPlan>;
  applyPending(): Promise<number>;
  resetPosition(peer: string, stream: string, appliedUpTo: number): Promise<void>;
}

/** The applier for the database the deps hold. */
export function syncApplier(deps: ApplierDeps, options: ApplierOptions = {}): SyncApplier {
  if (deps.db.dialect === 'postgres')
    return new PostgresChangeApplier({ ...deps, db: deps.db as PostgresDatabase }, options);
  return new ExclusiveChangeApplier(deps, new ChangeApplier(deps, options));
}

/**
 * SQLite: the synchronous applier, each call inside exclusive(). Batches are applied in slices of
 * about SLICE_MS (apply-slices.ts), one group at a time across the peers (applySlices), so requests
 * and the read workers' answers are served between them while a backlog drains; the outcomes come
 * once the whole group is applied (the ack goes after it). A failing slice rejects the call: the
 * slices before it stay committed, their rows skipped as duplicates when the peer resends.
 */
export class ExclusiveChangeApplier implements SyncApplier {
  constructor(
    private readonly deps: Pick<ApplierDeps, 'db'>,
    readonly applier: ChangeApplier,
  ) {}

  async apply(peer: string, batch: Batch) {
    return (await this.applyMany(peer, [batch]))[0]!;
  }

  async applyMany(peer: string, batches: readonly Batch[]) {
    const sliced = this.applier.sliced(peer, batches);
    try {
      await applySlices(this.deps, () => sliced.step());
    } finally {
      sliced.publish();
    }
    return sliced.outcomes;
  }

  retryDeadLetters(filter: { peer?: string; ids?: number[] } = {}) {
    return exclusive(this.deps, () => this.applier.retryDeadLetters(filter));
  }

  adoptDeadLetters(peer: string, ids: readonly number[]) {
    return exclusive(this.deps, () => this.applier.adoptDeadLetters(peer, ids));
  }

  previewAdoption(peer: string) {
    return exclusive(this.deps, () => this.applier.previewAdoption(peer));
  }

  applyPending() {
    return exclusive(this.deps, () => this.applier.applyPending());
  }

  resetPosition(peer: string, stream: string, appliedUpTo: number) {
    return exclusive(this.deps, () => this.applier.resetPosition(peer, stream, appliedUpTo));
  }
}
