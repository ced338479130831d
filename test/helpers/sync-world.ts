import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type EmbeddedBroker, startEmbeddedBroker } from '../../cloud/broker.js';
import { cloudNodeId, cloudSync, cloudTransport } from '../../cloud/sync/index.js';
import { NodeOnvifClient } from '../../edge/cameras/onvif-client.js';
import { SimulatedGates } from '../../edge/hardware/simulated-gates.js';
import { edgeSync, edgeTransport } from '../../edge/sync/index.js';
import { createApp, type YardApp } from '../../shared/app.js';
import type { PublishedEvent } from '../../shared/bus.js';
import { CAMERA_PROVIDER_KINDS } from '../../shared/cameras/providers/index.js';
import { loadConfig } from '../../shared/config.js';
import type { Core } from '../../shared/core.js';
import { type AppDatabase, openDatabase } from '../../shared/db/database.js';
import { createLogger } from '../../shared/log.js';
import { SiteRepo } from '../../shared/modules/sync/sites.js';
import type { SyncTransport } from '../../shared/sync/transport.js';
import { FaultLink } from './fault-link.js';
import { type Faults, FaultyTransport } from './faulty-transport.js';
import { Client } from './http.js';
import { ADMIN, loginAdmin } from './test-app.js';
import { waitFor } from './wait-for.js';

/**
 * A cloud and edges over a real in-process MQTT broker (Aedes), like sync-harness.ts, but every node
 * keeps its data directory across restarts so that it can be killed and started again on the same
 * database file:
 * - `node.crash()` models a process killed at this instant: its link is dead at once (nothing more
 *   leaves or arrives, the broker drops its socket and publishes the will), and its database file
 *   becomes what a crash leaves on disk: the committed transactions only (synchronous=FULL), read
 *   through a second connection, so a transaction open on the node's own connection is not in it.
 *   The old app is then shut down on its own copy and thrown away; `restart()` opens the file again.
 * - `node.crashAtInsert(table, n)` does that from inside the n-th insert into `table` (a temporary
 *   trigger calling a JavaScript function), i.e. in the middle of whatever transaction wrote it.
 * - `world.killBroker()` cuts every client's socket at once and stops the broker (its sessions and
 *   retained messages are lost); `startBroker()` brings a new one up on the same port.
 * Set SYNC_WORLD_LOG=debug to see the nodes' logs.
 */
export interface WorldOptions {
  sites?: string[];
  /** Config overrides (dotted paths) for every node. */
  config?: Record<string, unknown>;
  /** Inbound faults (FaultyTransport) of a node. */
  faults?: (role: 'cloud' | 'edge', siteId: string) => Faults | undefined;
}

const DEFAULT_CONFIG = { 'sync.ackTimeoutMs': 1_500, 'sync.commandTimeoutMs': 3_000 };

interface Running {
  yard: YardApp;
  db: AppDatabase;
  server: Server;
}

export class WorldNode {
  link!: FaultLink;
  faulty: FaultyTransport | undefined;
  client!: Client;
  /** Org-wide `sync.applied` events of the current run: each is one commit that changed rows. */
  readonly applied: PublishedEvent[] = [];
  private running: Running | undefined;
  private disposing: Promise<void> | undefined;
  private clientId = '';

  constructor(
    private readonly world: SyncWorld,
    readonly role: 'cloud' | 'edge',
    readonly siteId: string,
    readonly dir: string,
  ) {}

  get dbFile(): string {
    return join(this.dir, 'yard.db');
  }
  get app(): Running & { core: Core } {
    if (!this.running) throw new Error(`${this.siteId} is not running`);
    return { ...this.running, core: this.running.yard.core };
  }
  get sqlite(): Database.Database {
    return this.app.db.sqlite;
  }

  async start(options: { login?: boolean } = {}): Promise<void> {
    const env: Record<string, string> = {
      YARD_DATA_DIR: this.dir,
      YARD_ROLE: this.role,
      YARD_MQTT_URL: this.world.url,
      YARD_ADMIN_USER: ADMIN.username,
      YARD_ADMIN_PASSWORD: ADMIN.password,
    };
    if (this.role === 'edge') env.YARD_SITE_ID = this.siteId;
    const config = loadConfig(env, { validateResponses: true, ...this.world.config });
    const db = openDatabase(this.dbFile);
    const level = process.env.SYNC_WORLD_LOG;
    const log = level ? createLogger({ level, name: `${this.role}:${this.siteId}` }) : undefined;
    const transport = (core: Core): SyncTransport => {
      const cloud = this.role === 'cloud';
      const nodeId = cloud ? cloudNodeId(core) : '';
      this.clientId = cloud ? `cloud-${nodeId}` : `edge-${this.siteId}`;
      const mqtt = cloud
        ? cloudTransport(core.config, core.log, nodeId)
        : edgeTransport(core.config, core.log);
      const faults = this.world.options.faults?.(this.role, this.siteId);
      this.faulty = faults ? new FaultyTransport(mqtt, { ...faults }) : undefined;
      this.link = new FaultLink(this.faulty ?? mqtt);
      return this.link;
    };
    const yard = createApp({
      db,
      config,
      gates: new SimulatedGates(undefined, 0),
      cameras: {
        onvif: new NodeOnvifClient({ probeAddress: '127.0.0.1', probePort: 9 }),
        providers: CAMERA_PROVIDER_KINDS,
      },
      ...(log ? { log } : {}),
      sync: this.role === 'cloud' ? cloudSync({ transport }) : edgeSync({ transport }),
    });
    this.applied.length = 0;
    yard.core.bus.subscribe((event) => {
      if (event.type === 'sync.applied' && event.yardId === null) this.applied.push(event);
    });
    if (this.role === 'cloud') await yard.services.auth.ensureAdmin();
    await yard.start();
    const server = await listen(yard);
    this.running = { yard, db, server };
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    this.client = new Client(url);
    if (options.login ?? true) await this.login();
  }

  /** Logs the admin in (at an edge once the cloud's users have arrived). */
  async login(): Promise<void> {
    await waitFor(
      () => this.sqlite.prepare('SELECT 1 FROM app_user WHERE username = ?').get(ADMIN.username),
      {
        timeoutMs: 15_000,
        what: `the admin user at ${this.siteId}`,
      },
    );
    this.client.token = await loginAdmin(this.client.baseUrl);
  }

  /** A clean stop (the data directory stays). */
  async stop(): Promise<void> {
    await this.disposing;
    const running = this.running;
    this.running = undefined;
    if (!running) return;
    await closeServer(running.server);
    await running.yard.stop();
    running.db.close();
  }

  /**
   * The process dies now (see the class comment). Synchronous up to the returned promise, which
   * settles once the dead app's leftovers are gone and the database file holds the crash state.
   * `inspect` sees the crash state before that (a read-only connection).
   */
  crash<T>(inspect?: (crashState: Database.Database) => T): { result: T | undefined; done: Promise<void> } {
    const running = this.running;
    if (!running) throw new Error(`${this.siteId} is not running`);
    this.running = undefined;
    void this.link.kill();
    this.world.dropConnection(this.clientId);
    running.server.closeAllConnections();
    const crashFile = join(this.dir, 'crash-state.db');
    rmSync(crashFile, { force: true });
    const reader = new Database(this.dbFile, { readonly: true });
    let result: T | undefined;
    try {
      reader.prepare('VACUUM INTO ?').run(crashFile);
    } finally {
      reader.close();
    }
    if (inspect) {
      const state = new Database(crashFile, { readonly: true });
      try {
        result = inspect(state);
      } finally {
        state.close();
      }
    }
    this.disposing = (async () => {
      await closeServer(running.server);
      await running.yard.stop();
      running.db.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${this.dbFile}${suffix}`, { force: true });
      renameSync(crashFile, this.dbFile);
    })();
    return { result, done: this.disposing };
  }

  /**
   * Runs `action` inside the n-th insert into `table` from now on, i.e. in the middle of whatever
   * transaction wrote that row (a temporary trigger calling a JavaScript function). `action` must
   * not use this node's connection.
   */
  onInsert(table: string, n: number, action: () => void): void {
    const sqlite = this.sqlite;
    let seen = 0;
    sqlite.function('world_insert_hook', () => {
      seen += 1;
      if (seen === n) action();
      return null;
    });
    sqlite.exec(
      `CREATE TEMP TRIGGER world_insert_hook AFTER INSERT ON main.${table} BEGIN SELECT world_insert_hook(); END`,
    );
  }

  /**
   * Arms a crash inside the n-th insert into `table`. Resolves when the node is down, with how many
   * rows of the table the crash state holds (fewer than were inserted when the transaction in
   * flight was lost with the process).
   */
  crashAtInsert(table: string, n: number): Promise<{ committed: number }> {
    return new Promise((resolve, reject) => {
      this.onInsert(table, n, () => {
        try {
          const { result, done } = this.crash(
            (state) => state.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number,
          );
          done.then(() => resolve({ committed: result ?? 0 }), reject);
        } catch (err) {
          reject(err);
        }
      });
    });
  }

  /** Starts the node again on its database file (after crash() or stop()). */
  async restart(options: { login?: boolean } = {}): Promise<void> {
    await this.disposing;
    this.disposing = undefined;
    await this.start(options);
  }
}

export class SyncWorld {
  readonly cloud: WorldNode;
  readonly edges: WorldNode[] = [];
  readonly config: Record<string, unknown>;
  private broker: EmbeddedBroker | undefined;
  private port = 0;
  private readonly root = mkdtempSync(join(tmpdir(), 'yard-world-'));

  private constructor(readonly options: WorldOptions) {
    this.config = { ...DEFAULT_CONFIG, ...options.config };
    this.cloud = new WorldNode(this, 'cloud', 'cloud', this.dirFor('cloud'));
  }

  static async start(options: WorldOptions = {}): Promise<SyncWorld> {
    const world = new SyncWorld(options);
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

  /** The edge's link dies (its will says offline at the cloud); `restore` brings it back. */
  async cut(node: WorldNode): Promise<void> {
    this.dropConnection(`edge-${node.siteId}`);
    await node.link.stop();
  }
  restore(node: WorldNode): Promise<void> {
    return node.link.start();
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
  }

  async close(): Promise<void> {
    for (const node of [...this.edges].reverse()) await node.stop().catch(() => undefined);
    await this.cloud.stop().catch(() => undefined);
    await this.killBroker();
    rmSync(this.root, { recursive: true, force: true });
  }

  private dirFor(name: string): string {
    const dir = join(this.root, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  }
}

function listen(yard: YardApp): Promise<Server> {
  return new Promise((resolve) => {
    const server = yard.app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
