import { toIsoOrNull } from '../../shared/clock.js';
import type { CoreParts } from '../../shared/core-parts.js';
import type { LiveEvents } from '../../shared/events.js';

export type LinkState = LiveEvents['sync.link']['link'];
type LinkFacts = LiveEvents['sync.link'];

/** `sync.link` events are published at most this often (the last value always follows). */
const LINK_EVENT_EVERY_MS = 2_000;

export interface LinkWatchOptions {
  /** The link's state now (EdgeSync: connected, else offline once it was ever up, else never). */
  state: () => LinkState;
  /** Changes waiting for the cloud. */
  queued: () => Promise<number>;
  everyMs?: number;
}

/**
 * The edge's link as its staff see it (the gate house's link badge): when the link state last
 * changed (SyncStatus.linkSince), and a live `sync.link` event when the state or the queue depth
 * changes. Throttled: the first change after a quiet spell goes out at once, later ones at most one
 * per `everyMs`, and the values are read when the event is sent, so the last one always arrives.
 * In memory: after a restart `since` is null until the link next changes.
 */
export class LinkWatch {
  private last: LinkState | undefined;
  private since: number | null = null;
  private sent: LinkFacts | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastSentAt = 0;
  private stopped = false;

  constructor(
    private readonly deps: Pick<CoreParts, 'bus' | 'clock' | 'log'>,
    private readonly o: LinkWatchOptions,
  ) {}

  /** Notes the state the link starts in, so the first change (never or offline to online) counts. */
  start(): void {
    this.stopped = false;
    this.observe();
  }

  /** ISO time of the last change of the link state; null if it has not changed in this process. */
  linkSince(): string | null {
    this.observe();
    return toIsoOrNull(this.since);
  }

  /** The link went up or down, or the queue may have changed: note it and tell the clients soon. */
  changed(): void {
    this.observe();
    if (this.timer || this.stopped) return;
    const every = this.o.everyMs ?? LINK_EVENT_EVERY_MS;
    const delay = Math.max(0, this.lastSentAt + every - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.send().catch((err: Error) => this.deps.log.debug({ err: err.message }, 'sync.link not published'));
    }, delay);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private observe(): void {
    const state = this.o.state();
    if (this.last !== undefined && state !== this.last) this.since = this.deps.clock.now();
    this.last = state;
  }

  private async send(): Promise<void> {
    const queued = await this.o.queued();
    if (this.stopped) return;
    this.observe();
    const facts: LinkFacts = { link: this.last ?? this.o.state(), since: toIsoOrNull(this.since), queued };
    const s = this.sent;
    if (s && s.link === facts.link && s.since === facts.since && s.queued === facts.queued) return;
    this.sent = facts;
    this.lastSentAt = Date.now();
    // Site-wide: every staff member of this edge receives it (events.ts SITE_WIDE), drivers not.
    this.deps.bus.publish({ type: 'sync.link', yardId: null, data: facts });
  }
}
