import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EmbeddedBroker, startEmbeddedBroker } from '../../cloud/broker.js';
import { SiteRepo } from '../../shared/modules/sync/sites.js';
import type { Faults } from './faulty-transport.js';
import type { TestDatabase, TestDialect } from './postgres.js';
import { WorldNode } from './sync-world-node.js';
import { TcpProxy } from './tcp-proxy.js';
import { waitFor } from './wait-for.js';

export { WorldNode } from './sync-world-node.js';

/**
 * A cloud and edges over a real in-process MQTT broker (Aedes), like sync-harness.ts, but every node
 * keeps its data directory (a cloud on PostgreSQL: its database) across restarts so that it can be killed and started again on the same
 * database file:
 * - `node.crash()` models a process killed at this instant: its link is dead at once (nothing more
 *   leaves or arrives, the broker drops its socket and publishes the will), and its database file
 *   becomes what a crash leaves on disk: the committed transactions only (synchronous=FULL), read
 *   through a second connection, so a transaction open on the node's own connection is not in it.
 *   The old app is then shut down on its own copy and thrown away; `restart()` opens the file again.
 * - `node.crashAtInsert(table, n)` does that from inside the n-th insert into `table` (a temporary
 *   trigger calling a JavaScript function; on PostgreSQL a trigger that makes that insert wait on a
 *   lock while the node is killed), i.e. in the middle of whatever transaction wrote it.
 * - A cloud on PostgreSQL (`dialect`): its database outlives its restarts; its crash ends its pool
 *   and terminates its sessions, which leaves the committed transactions.
 * - `world.killBroker()` cuts every client's socket at once and stops the broker (its sessions and
 *   retained messages are lost); `startBroker()` brings a new one up on the same port.
 * - Each edge reaches the broker through its own TcpProxy: `cut()` is a network outage.
 * - `refuse()` makes the broker answer a client's CONNECT with "server unavailable".
 * Set SYNC_WORLD_LOG=debug to see the nodes' logs.
 */
export interface WorldOptions {
  sites?: string[];
  /** Config overrides (dotted paths) for every node. */
  config?: Record<string, unknown>;
  /** Inbound faults (FaultyTransport) of a node. */
  faults?: (role: 'cloud' | 'edge', siteId: string) => Faults | undefined;
  /** The cloud's database (default SQLite; PostgreSQL: a fresh database of the tests' server, kept across the cloud's restarts). Edges are SQLite. */
  dialect?: TestDialect;
}

const DEFAULT_CONFIG = { 'sync.ackTimeoutMs': 1_500, 'sync.commandTimeoutMs': 3_000 };

export class SyncWorld {
  readonly cloud: WorldNode;
  readonly edges: WorldNode[] = [];
  readonly config: Record<string, unknown>;
  private broker: EmbeddedBroker | undefined;
  private port = 0;
  /** MQTT client ids the broker turns away (`refuse`). */
  private readonly refused = new Set<string>();
  private readonly root = mkdtempSync(join(tmpdir(), 'yard-world-'));
  /** The cloud's PostgreSQL database (dialect 'postgres'). */
  cloudPostgres: TestDatabase | undefined;

  private constructor(readonly options: WorldOptions) {
    this.config = { ...DEFAULT_CONFIG, ...options.config };
    this.cloud = new WorldNode(this, 'cloud', 'cloud', this.dirFor('cloud'));
  }

  static async start(options: WorldOptions = {}): Promise<SyncWorld> {
    const world = new SyncWorld(options);
    if (options.dialect === 'postgres') {
      // Imported here, as in test-app.ts: postgres.ts reads vitest's provided server.
      world.cloudPostgres = await (await import('./postgres.js')).createTestDatabase();
    }
    await world.startBroker();
    await world.cloud.start();
    for (const siteId of options.sites ?? ['site-a']) await world.addEdge(siteId);
    return world;
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  edge(siteId?: string): WorldNode {
    const node = siteId ? this.edges.find((e) => e.siteId === siteId) : this.edges[0];
    if (!node) throw new Error(`no edge ${siteId ?? ''}`);
    return node;
  }

  /** Registers the site at the cloud and starts its edge (logged in once the admin arrived). */
  async addEdge(siteId: string, options: { login?: boolean } = {}): Promise<WorldNode> {
    const sites = new SiteRepo(this.cloud.app.core.kysely);
    if (!(await sites.get(siteId))) {
      await sites.create({ id: siteId, name: `Site ${siteId}`, password: 'placeholder-password' });
    }
    const node = new WorldNode(this, 'edge', siteId, this.dirFor(siteId));
    node.proxy = new TcpProxy(() => this.port);
    await node.proxy.start();
    this.edges.push(node);
    await node.start(options);
    return node;
  }

  /** The broker drops the client's socket (no DISCONNECT: it publishes the client's will). */
  dropConnection(clientId: string): void {
    const clients = (
      this.broker?.aedes as unknown as { clients?: Record<string, { conn: { destroy(): void } }> }
    )?.clients;
    clients?.[clientId]?.conn.destroy();
  }

  /**
   * The edge's network to the broker goes down (its connection dies, the broker publishes its will,
   * reconnects fail) until `restore`; the edge's own MQTT client keeps retrying and carries on with
   * its session once through (QoS 1 messages it had in flight are sent again).
   */
  async cut(node: WorldNode): Promise<void> {
    node.proxy?.cut();
    await waitFor(() => !node.link.connected, { what: `${node.siteId} cut off` });
  }
  async restore(node: WorldNode): Promise<void> {
    node.proxy?.restore();
  }

  /** CONNECTs answered with "server unavailable" (`refuse`), per client id. */
  readonly refusals = new Map<string, number>();

  /** The broker answers this client's CONNECT with "server unavailable" until `admit`. */
  refuse(clientId: string): void {
    this.refused.add(clientId);
  }
  admit(clientId: string): void {
    this.refused.delete(clientId);
  }

  /** The running broker (tests hook into its authorization). */
  get aedes(): EmbeddedBroker['aedes'] {
    if (!this.broker) throw new Error('the broker is not running');
    return this.broker.aedes;
  }

  /** Synchronous up to the promise: every socket is cut now, then the broker is stopped. */
  killBroker(): Promise<void> {
    const broker = this.broker;
    this.broker = undefined;
    if (!broker) return Promise.resolve();
    const clients = (broker.aedes as unknown as { clients: Record<string, { conn: { destroy(): void } }> })
      .clients;
    for (const client of Object.values(clients)) client.conn.destroy();
    return broker.stop();
  }

  async startBroker(): Promise<void> {
    this.broker = await startEmbeddedBroker({ port: this.port, host: '127.0.0.1' });
    this.port = this.broker.port;
    this.broker.aedes.authenticate = (client, _user, _password, done) => {
      if (!this.refused.has(client.id)) return done(null, true);
      this.refusals.set(client.id, (this.refusals.get(client.id) ?? 0) + 1);
      // 3: server unavailable (MQTT 3.1.1 CONNACK); the client tries again later.
      done(Object.assign(new Error('refused'), { returnCode: 3 }) as never, false);
    };
  }

  /** Stops everything; a node whose stop hangs (a test found that) is left behind after 10 s. */
  async close(): Promise<void> {
    const stop = (node: WorldNode) =>
      Promise.race([node.stop().catch(() => undefined), new Promise((r) => setTimeout(r, 10_000).unref())]);
    for (const node of [...this.edges].reverse()) await stop(node);
    await stop(this.cloud);
    for (const node of this.edges) await node.proxy?.stop();
    await this.killBroker();
    await this.cloudPostgres?.drop();
    rmSync(this.root, { recursive: true, force: true });
  }

  private dirFor(name: string): string {
    const dir = join(this.root, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  }
}
