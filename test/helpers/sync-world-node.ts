import { renameSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { NoRelays } from '../../cloud/no-relays.js';
import { cloudNodeId, cloudSync, cloudTransport } from '../../cloud/sync/index.js';
import { SimulatedGates } from '../../edge/hardware/simulated-gates.js';
import { edgeSync, edgeTransport } from '../../edge/sync/index.js';
import type { SyncFactoryDeps } from '../../shared/app.js';
import { createApp, type YardApp } from '../../shared/app.js';
import type { PublishedEvent } from '../../shared/bus.js';
import { NodeOnvifClient } from '../../shared/cameras/onvif-client.js';
import { CAMERA_PROVIDER_KINDS } from '../../shared/cameras/providers/index.js';
import { loadConfig } from '../../shared/config.js';
import type { Core } from '../../shared/core.js';
import { openDatabase, type SqliteDatabase } from '../../shared/db/database.js';
import { createLogger } from '../../shared/log.js';
import type { SyncTransport } from '../../shared/sync/transport.js';
import { FaultLink } from './fault-link.js';
import { type Faults, FaultyTransport } from './faulty-transport.js';
import { Client } from './http.js';
import type { TcpProxy } from './tcp-proxy.js';
import { ADMIN, loginAdmin } from './test-app.js';
import { waitFor } from './wait-for.js';

/** What a node needs from its world (sync-world.ts). */
export interface NodeHost {
  /** The broker's URL (edges reach it through their proxy). */
  readonly url: string;
  readonly config: Record<string, unknown>;
  readonly options: { faults?: ((role: 'cloud' | 'edge', siteId: string) => Faults | undefined) | undefined };
  dropConnection(clientId: string): void;
}

/**
 * One cloud or edge app of a SyncWorld on its own data directory, which survives stop(), crash()
 * and restart() (see sync-world.ts). Set SYNC_WORLD_LOG=debug to see its log.
 */
interface Running {
  yard: YardApp;
  db: SqliteDatabase;
  server: Server;
}

export class WorldNode {
  link!: FaultLink;
  faulty: FaultyTransport | undefined;
  client!: Client;
  /** Org-wide `sync.applied` events of the current run: each is one commit that changed rows. */
  readonly applied: PublishedEvent[] = [];
  /** The edge's network to the broker (cut and restored by the world). */
  proxy: TcpProxy | undefined;
  private running: Running | undefined;
  private disposing: Promise<void> | undefined;
  private clientId = '';

  constructor(
    private readonly world: NodeHost,
    readonly role: 'cloud' | 'edge',
    readonly siteId: string,
    readonly dir: string,
  ) {}

  /** This node's MQTT client id at the broker. */
  get mqttClientId(): string {
    return this.clientId;
  }

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
      YARD_MQTT_URL: this.proxy?.url ?? this.world.url,
      YARD_ADMIN_USER: ADMIN.username,
      YARD_ADMIN_PASSWORD: ADMIN.password,
    };
    if (this.role === 'edge') env.YARD_SITE_ID = this.siteId;
    const config = loadConfig(env, { validateResponses: true, ...this.world.config });
    const db = openDatabase(this.dbFile);
    const level = process.env.SYNC_WORLD_LOG;
    const log = level ? createLogger({ level, name: `${this.role}:${this.siteId}` }) : undefined;
    const transport = (core: SyncFactoryDeps): SyncTransport => {
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
      gates: this.role === 'cloud' ? new NoRelays() : new SimulatedGates(undefined, 0),
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

function listen(yard: YardApp): Promise<Server> {
  return new Promise((resolve) => {
    const server = yard.app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
