import type pg from 'pg';
import type { Component } from '../lifecycle.js';
import type { Logger } from '../log.js';

export interface PostgresListenerDeps {
  pool: pg.Pool;
  log: Logger;
  /** Wait before listening again after the connection was lost. */
  reconnectMs?: number;
}

/**
 * A cloud node's one dedicated PostgreSQL connection for LISTEN/NOTIFY (docs/architecture.md "Two databases, and several cloud nodes"): the node's
 * parts that hear from the other nodes register their channels here (`on`), and the live-event
 * relay sends on it too (`notify`: one connection, so a node's notifications go out in order).
 * When the connection is lost (server restart, failover) it listens again shortly; what was
 * notified meanwhile is lost, so `onReconnected` tells the parts to assume everything changed.
 */
export class PostgresListener implements Component {
  readonly name = 'PostgreSQL notifications';
  private readonly handlers = new Map<string, Array<(payload: string) => void>>();
  private readonly reconnectedListeners: Array<() => void> = [];
  private client: pg.PoolClient | undefined;
  /** Connections released to the pool (their later errors are the pool's). */
  private readonly givenBack = new WeakSet<pg.PoolClient>();
  private stopped = true;
  private reconnect: NodeJS.Timeout | undefined;
  /** The last NOTIFY queued (notify). */
  private sending: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: PostgresListenerDeps) {}

  /** Calls `handler` with the payload of each notification on `channel` (register before start). */
  on(channel: string, handler: (payload: string) => void): void {
    if (!/^[a-z_]+$/.test(channel)) throw new Error(`channel name ${channel} is not a plain identifier`);
    this.handlers.set(channel, [...(this.handlers.get(channel) ?? []), handler]);
  }

  /** Called after the connection was lost and is back: notifications in between were missed. */
  onReconnected(listener: () => void): void {
    this.reconnectedListeners.push(listener);
  }

  get connected(): boolean {
    return this.client !== undefined;
  }

  /**
   * NOTIFY on the dedicated connection, after the ones before it (in order; pg wants one query at
   * a time on a client); false (nothing sent) while it is down.
   */
  notify(channel: string, payload: string): Promise<boolean> {
    const sent = this.sending.then(() => {
      const client = this.client;
      if (!client) return false;
      return client.query('SELECT pg_notify($1, $2)', [channel, payload]).then(() => true);
    });
    this.sending = sent.catch(() => false);
    return sent;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnect);
    this.reconnect = undefined;
    await this.sending;
    const client = this.client;
    this.client = undefined;
    if (client) {
      await client.query('UNLISTEN *').catch(() => {});
      this.givenBack.add(client);
      client.release();
    }
  }

  private async connect(): Promise<void> {
    const client = await this.deps.pool.connect();
    client.on('notification', (message) => {
      for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? '');
    });
    client.on('error', (err) => {
      // Not ours any more: stop() gave it back to the pool, which handles its idle clients' errors
      // (releasing it again would throw).
      if (this.givenBack.has(client)) return;
      this.deps.log.warn(
        { err },
        'notifications from the other nodes: connection lost; listening again shortly',
      );
      if (this.client === client) this.client = undefined;
      this.givenBack.add(client);
      client.release(err);
      this.scheduleReconnect();
    });
    for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
    this.client = client;
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnect) return;
    this.reconnect = setTimeout(() => {
      this.reconnect = undefined;
      if (this.stopped) return;
      this.connect().then(
        () => {
          this.deps.log.info('notifications from the other nodes: listening again');
          for (const l of this.reconnectedListeners) l();
        },
        (err) => {
          this.deps.log.warn({ err }, 'notifications from the other nodes: cannot listen yet');
          this.scheduleReconnect();
        },
      );
    }, this.deps.reconnectMs ?? 1000);
  }
}
