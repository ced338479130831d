import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import type { z } from '../../http/zod.js';
import type { SyncMode } from '../../role-profile.js';
import type { SyncStatusOut } from './schema.js';

export type SyncStatusDeps = Pick<CoreParts, 'sync' | 'kysely' | 'config' | 'hlc' | 'profile'>;

type StatusBase = Pick<
  Extract<z.input<typeof SyncStatusOut>, { mode: 'standalone' }>,
  'siteId' | 'lastSeq' | 'ackedSeq' | 'queued' | 'deadLetters' | 'clockSkewMs'
>;

/**
 * The status without a sync runtime, by the mode it reports (the role profile's): a standalone
 * edge, or, in tests and tools, a linked edge or cloud whose sync is not started.
 */
const IDLE_STATUS: Record<SyncMode, (base: StatusBase) => z.input<typeof SyncStatusOut>> = {
  standalone: (base) => ({ ...base, mode: 'standalone', role: 'edge' }),
  linked: (base) => ({
    ...base,
    mode: 'linked',
    role: 'edge',
    link: 'never',
    linkSince: null,
    lastAckAt: null,
    appliedRemoteSeq: 0,
    pending: 0,
  }),
  cloud: (base) => ({
    ...base,
    mode: 'cloud',
    role: 'cloud',
    sites: [],
    node: { id: 'cloud', sendsTo: [], applied: { batches: 0, rows: 0 } },
  }),
};

/** Sync figures: the runtime's when sync runs (linked edge, cloud), else what the local change log says. */
export class SyncStatus {
  constructor(private readonly deps: SyncStatusDeps) {}

  /** The mode reported (role-profile.ts). */
  get mode(): SyncMode {
    return this.deps.profile.syncMode;
  }

  /** For /readyz: the queue depth. */
  async readiness(): Promise<{ mode: string; queued: number }> {
    const runtime = this.deps.sync.runtime;
    if (runtime) return { mode: this.mode, queued: await runtime.queued() };
    const status = await this.idle();
    return { mode: status.mode, queued: status.queued };
  }

  /** GET /api/sync/status. */
  async status(): Promise<z.input<typeof SyncStatusOut>> {
    const runtime = this.deps.sync.runtime;
    if (runtime) return (await runtime.status()) as z.input<typeof SyncStatusOut>;
    return this.idle();
  }

  /** No sync runtime: what the local change log says, in the shape of the reported mode. */
  private async idle(): Promise<z.input<typeof SyncStatusOut>> {
    const { lastSeq, ackedSeq, queued, deadLetters } = await localLogFigures(this.deps.kysely, 'cloud');
    return IDLE_STATUS[this.mode]({
      siteId: this.deps.config.siteId,
      lastSeq,
      ackedSeq,
      queued,
      deadLetters,
      clockSkewMs: Math.round(this.deps.hlc.maxSkewMs),
    });
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
