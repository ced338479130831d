import type { CoreParts } from '../../shared/core-parts.js';
import type { Kdb } from '../../shared/db/database.js';
import { forWrite } from '../../shared/db/sql-helpers.js';
import type { SiteStatus } from '../../shared/sync/protocol.js';
import { gatesToStore } from './site-gates.js';

export interface RecordedStatus {
  before: 'never' | 'online' | 'offline';
  linkChanged: boolean;
  changed: boolean;
}

export type SiteStatusDeps = Pick<CoreParts, 'kysely' | 'clock' | 'log'>;

/** last_seen_at is written at most this often per site for ordinary traffic (batches, acks). */
const SEEN_WRITE_EVERY_MS = 5_000;
/** docs/sync.md "Topics" (site status): a peer clock further ahead than this is logged (and shown), never a reason to stop. */
const SKEW_WARN_MS = 5 * 60_000;

/**
 * Keeps the cloud's `site` rows up to date with what each edge says on `yards/{site}/status`
 * (retained; the broker publishes the edge's will, state offline, when the edge vanishes):
 * link state and when it changed, when we last heard from the site, its own queue depth, schema
 * version, program version, its gates' relay states, and how far its clock is from ours.
 */
export class SiteStatusTracker {
  private readonly lastSeenWrite = new Map<string, number>();

  constructor(private readonly deps: SiteStatusDeps) {}

  /**
   * Stores a status message. Returns the link state before it, and whether what the sites page
   * shows of the site changed (link state, its reported queue, schema or program version, gates);
   * undefined for a site that is not registered.
   */
  async record(siteId: string, status: SiteStatus): Promise<RecordedStatus | undefined> {
    const now = this.deps.clock.now();
    // One transaction with the site row locked (PostgreSQL): with several cloud nodes, each may
    // record a status of the same site, and what changed is decided from the row as it was.
    const recorded = await this.deps.kysely
      .transaction()
      .execute((trx) => this.write(trx, siteId, status, now));
    if (recorded && status.state === 'online') this.lastSeenWrite.set(siteId, now);
    if (recorded?.linkChanged) {
      this.deps.log.info({ siteId, from: recorded.before, to: status.state }, 'site link state changed');
    }
    return recorded;
  }

  private async write(
    trx: Kdb,
    siteId: string,
    status: SiteStatus,
    now: number,
  ): Promise<RecordedStatus | undefined> {
    const before = await forWrite(
      trx,
      trx
        .selectFrom('site')
        .select([
          'linkState',
          'clockSkewMs',
          'reportedQueued',
          'reportedSchemaV',
          'reportedVersion',
          'reportedGates',
        ])
        .where('id', '=', siteId),
    ).executeTakeFirst();
    if (!before) return undefined;
    // `at` of an online status is the edge's clock when it published; a will carries the time the
    // edge connected, which says nothing about skew now.
    const skew = status.state === 'online' ? status.at - now : before.clockSkewMs;
    if (status.state === 'online' && Math.abs(skew) > SKEW_WARN_MS) {
      this.deps.log.warn(
        { siteId, clockSkewMs: skew },
        'site clock is more than 5 minutes off the cloud clock',
      );
    }
    const after = {
      linkState: status.state,
      reportedQueued: status.queued,
      reportedSchemaV: status.schemaV,
      reportedVersion: status.version,
      reportedGates: gatesToStore(status, before.reportedGates),
    };
    const linkChanged = before.linkState !== status.state;
    await trx
      .updateTable('site')
      .set({
        ...after,
        ...(linkChanged ? { linkChangedAt: now } : {}),
        ...(status.state === 'online' ? { lastSeenAt: now } : {}),
        clockSkewMs: Math.round(skew),
      })
      .where('id', '=', siteId)
      .execute();
    const changed =
      linkChanged ||
      before.reportedQueued !== after.reportedQueued ||
      before.reportedSchemaV !== after.reportedSchemaV ||
      before.reportedVersion !== after.reportedVersion ||
      before.reportedGates !== after.reportedGates;
    return { before: before.linkState, linkChanged, changed };
  }

  /** The site sent something (a batch, an ack, a command result): remember when, cheaply. */
  seen(siteId: string): void {
    const now = this.deps.clock.now();
    if (now - (this.lastSeenWrite.get(siteId) ?? 0) < SEEN_WRITE_EVERY_MS) return;
    this.lastSeenWrite.set(siteId, now);
    void this.deps.kysely
      .updateTable('site')
      .set({ lastSeenAt: now })
      .where('id', '=', siteId)
      .execute()
      .catch((err: Error) => this.deps.log.warn({ siteId, err: err.message }, 'last_seen_at not stored'));
  }
}
