import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import type { z } from '../../http/zod.js';
import type { SyncStatusOut } from './schema.js';

export type SyncStatusDeps = Pick<CoreParts, 'sync' | 'kysely' | 'config' | 'hlc'>;

/** Sync figures: the runtime's when sync runs (linked edge, cloud), else what the local change log says. */
export class SyncStatus {
  constructor(private readonly deps: SyncStatusDeps) {}

  get mode(): string {
    return this.deps.sync.mode;
  }

  /** For /readyz: the queue depth. */
  async readiness(): Promise<{ mode: string; queued: number }> {
    const runtime = this.deps.sync.runtime;
    if (runtime) return { mode: this.deps.sync.mode, queued: await runtime.queued() };
    const status = await this.standalone();
    return { mode: status.mode, queued: status.queued };
  }

  /** GET /api/sync/status. */
  async status(): Promise<z.input<typeof SyncStatusOut>> {
    const runtime = this.deps.sync.runtime;
    if (runtime) return (await runtime.status()) as z.input<typeof SyncStatusOut>;
    return this.standalone();
  }

  /** No sync runtime: a standalone edge (or, in tests and tools, a linked edge or cloud whose sync is not started). */
  private async standalone(): Promise<z.input<typeof SyncStatusOut>> {
    const { lastSeq, ackedSeq, queued, deadLetters } = await localLogFigures(this.deps.kysely, 'cloud');
    // The mode follows from the role (config.ts syncMode): standalone and linked are edges.
    const base = {
      siteId: this.deps.config.siteId,
      lastSeq,
      ackedSeq,
      queued,
      deadLetters,
      clockSkewMs: Math.round(this.deps.hlc.maxSkewMs),
    };
    const mode = this.deps.sync.mode;
    if (mode === 'cloud')
      return {
        ...base,
        mode,
        role: 'cloud',
        sites: [],
        node: { id: 'cloud', sendsTo: [], applied: { batches: 0, rows: 0 } },
      };
    if (mode === 'linked') {
      return {
        ...base,
        mode,
        role: 'edge',
        link: 'never',
        linkSince: null,
        lastAckAt: null,
        appliedRemoteSeq: 0,
        pending: 0,
      };
    }
    return { ...base, mode, role: 'edge' };
  }
}

/**
 * The local change log's last seq for a peer, the peer's acknowledged seq and queue, and the dead
 * letters: index lookups and the counts kept by triggers (migration 0011), never a count of rows.
 */
async function localLogFigures(db: Kdb, peer: string) {
  const last = await db
    .selectFrom('changeLog')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('peer', '=', peer)
    .executeTakeFirst();
  const cursor = await db.selectFrom('syncCursor').selectAll().where('peer', '=', peer).executeTakeFirst();
  const counts = await db.selectFrom('syncPeerCount').selectAll().execute();
  const own = counts.find((c) => c.peer === peer);
  return {
    lastSeq: Number(last?.seq ?? 0),
    ackedSeq: cursor?.ackedSeq ?? 0,
    queued: own ? own.logRows - own.ackedRows : 0,
    deadLetters: counts.reduce((n, c) => n + c.deadLetters, 0),
  };
}
