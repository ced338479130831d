import type pg from 'pg';
import type { Component } from '../../shared/lifecycle.js';
import type { Logger } from '../../shared/log.js';

/**
 * Which cloud node sends each site its change stream. Of several nodes on one PostgreSQL, one at a
 * time may (two senders would send every batch twice and race over the site's acknowledged
 * position); whichever it is, the rows come from the one shared change log. The sender holds a
 * PostgreSQL session advisory lock per site on one dedicated connection: a node that dies loses
 * its connection and with it its sites, which the other nodes claim on their next try. On SQLite
 * (one node) every site is this node's (`SoleSender`).
 */
export interface SiteSenders extends Component {
  /** Whether this node sends to the site now, claiming it if no other node does. */
  claim(siteId: string): Promise<boolean>;
  /** Gives the site up (it went offline here, or this node stops sending to it). */
  release(siteId: string): Promise<void>;
  /** Gives every site up (this node lost the broker: a node that has it takes them over). */
  releaseAll(): Promise<void>;
  /** Called when this node lost every site at once (its connection dropped). */
  onLost(listener: () => void): void;
}

/** One node: it sends to every site. */
export class SoleSender implements SiteSenders {
  readonly name = 'site senders';
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  async claim(): Promise<boolean> {
    return true;
  }
  async release(): Promise<void> {}
  async releaseAll(): Promise<void> {}
  onLost(): void {}
}

/** The advisory-lock key space of site senders (the first of the two int4 keys). */
const SENDER_LOCK_CLASS = 0x79617264; // 'yard'

export class PostgresSiteSenders implements SiteSenders {
  readonly name = 'site senders';
  private client: pg.PoolClient | undefined;
  /**
   * Set by stop: a site status handled after it (an edge going offline while this node stops) must
   * not check out a new connection, which would hold the pool open and the process with it.
   */
  private stopped = false;
  private readonly held = new Set<string>();
  private readonly lostListeners: Array<() => void> = [];
  /** One statement at a time on the connection, in call order. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: { pool: pg.Pool; log: Logger }) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.connection();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue.catch(() => {});
    const client = this.client;
    this.client = undefined;
    this.held.clear();
    // Ending the session gives every lock back at once.
    client?.release(true);
  }

  onLost(listener: () => void): void {
    this.lostListeners.push(listener);
  }

  claim(siteId: string): Promise<boolean> {
    if (this.held.has(siteId)) return Promise.resolve(true);
    return this.serial(false, async (client) => {
      if (this.held.has(siteId)) return true;
      const { rows } = await client.query<{ ok: boolean }>(
        'SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok',
        [SENDER_LOCK_CLASS, siteId],
      );
      if (rows[0]?.ok) this.held.add(siteId);
      return rows[0]?.ok === true;
    }).catch((err: Error) => {
      this.deps.log.warn(
        { siteId, err: err.message },
        'could not claim sending to a site; trying again later',
      );
      return false;
    });
  }

  release(siteId: string): Promise<void> {
    if (!this.held.has(siteId)) return Promise.resolve();
    return this.serial(undefined, async (client) => {
      if (!this.held.delete(siteId)) return;
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [SENDER_LOCK_CLASS, siteId]);
    }).catch((err: Error) => {
      this.deps.log.warn({ siteId, err: err.message }, 'could not give up sending to a site');
    });
  }

  releaseAll(): Promise<void> {
    return this.serial(undefined, async (client) => {
      if (this.held.size === 0) return;
      this.held.clear();
      await client.query('SELECT pg_advisory_unlock_all()');
    }).catch((err: Error) => {
      this.deps.log.warn({ err: err.message }, 'could not give up sending to the sites');
    });
  }

  /** Whether this node holds the site (for status and tests). */
  holds(siteId: string): boolean {
    return this.held.has(siteId);
  }

  /** `work` on the connection after the calls before it; `stoppedAnswer` once stopped. */
  private serial<T>(stoppedAnswer: T, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const next = this.queue.then(async () => (this.stopped ? stoppedAnswer : work(await this.connection())));
    this.queue = next.catch(() => {});
    return next;
  }

  private async connection(): Promise<pg.PoolClient> {
    if (this.client) return this.client;
    if (this.stopped) throw new Error('site senders are stopped');
    const client = await this.deps.pool.connect();
    client.on('error', (err) => {
      if (this.client !== client) return;
      this.client = undefined;
      const had = this.held.size;
      this.held.clear();
      client.release(err);
      this.deps.log.warn(
        { err: err.message, sites: had },
        'site senders: connection lost, and with it every site',
      );
      for (const l of this.lostListeners) l();
    });
    this.client = client;
    return client;
  }
}
