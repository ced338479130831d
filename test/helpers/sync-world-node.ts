import { renameSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
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
import { type AppDatabase, openDatabase } from '../../shared/db/database.js';
import { migratePostgres } from '../../shared/db/migrate-postgres.js';
import { openPostgres } from '../../shared/db/postgres-database.js';
import { createLogger } from '../../shared/log.js';
import type { SyncTransport } from '../../shared/sync/transport.js';
import { FaultLink } from './fault-link.js';
import { type Faults, FaultyTransport } from './faulty-transport.js';
import { Client, query } from './http.js';
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
  /** The cloud's PostgreSQL database (its URL and an admin's), when the cloud is on PostgreSQL. */
  readonly cloudPostgres: { url: string } | undefined;
}

/**
 * One cloud or edge app of a SyncWorld on its own data directory, which survives stop(), crash()
 * and restart() (see sync-world.ts). Set SYNC_WORLD_LOG=debug to see its log.
 */
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
  /** The node's database: SQLite at an edge, the world's dialect at the cloud. */
  get db(): AppDatabase {
    return this.app.db;
  }
  /** The node's SQLite connection (edges; a cloud on PostgreSQL has none). */
  get sqlite(): Database.Database {
    const db = this.app.db;
    if (db.dialect !== 'sqlite') throw new Error(`${this.siteId} is on PostgreSQL: use node.db`);
    return db.sqlite;
  }
  /** On PostgreSQL: the cloud's database URL (it outlives the node's restarts). */
  private get postgresUrl(): string | undefined {
    return this.role === 'cloud' ? this.world.cloudPostgres?.url : undefined;
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
    const postgresUrl = this.postgresUrl;
    const db: AppDatabase = postgresUrl
      ? openPostgres({ url: postgresUrl, poolMax: 10, statementTimeoutMs: 0 })
      : openDatabase(this.dbFile);
    if (db.dialect === 'postgres') await migratePostgres(db.pool);
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
      async () =>
        (await query(this.db, 'SELECT 1 FROM app_user WHERE username = ?', ADMIN.username)).length > 0,
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
    await running.db.close();
  }

  /**
   * The process dies now (see the class comment). Synchronous up to the returned promise, which
   * settles once the dead app's leftovers are gone and the database holds the crash state.
   * `inspect` sees the crash state before that (a read-only connection; SQLite only).
   *
   * A cloud on PostgreSQL: its pool is ended at once (the dead process opens no connection again)
   * and every session of it is terminated, which rolls back the transactions in flight, so the
   * database holds what was committed; the dead app is then shut down against the ended pool.
   */
  crash<T>(inspect?: (crashState: Database.Database) => T): { result: T | undefined; done: Promise<void> } {
    const running = this.running;
    if (!running) throw new Error(`${this.siteId} is not running`);
    this.running = undefined;
    void this.link.kill();
    this.world.dropConnection(this.clientId);
    running.server.closeAllConnections();
    if (running.db.dialect === 'postgres') {
      if (inspect)
        throw new Error('crash(inspect) reads a SQLite crash state: count through node.db after done');
      const ended = running.db.close();
      const url = this.postgresUrl!;
      this.disposing = (async () => {
        await withClient(url, (c) =>
          c.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = current_database() AND application_name = $1`,
            [POOL_APPLICATION_NAME],
          ),
        );
        await closeServer(running.server);
        // Its pool is gone: what its shutdown would still write fails, as for a killed process.
        await running.yard.stop().catch(() => {});
        await ended.catch(() => {});
      })();
      return { result: undefined, done: this.disposing };
    }
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
      await running.db.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${this.dbFile}${suffix}`, { force: true });
      renameSync(crashFile, this.dbFile);
    })();
    return { result, done: this.disposing };
  }

  /**
   * Runs `action` inside the n-th insert into `table` from now on, i.e. in the middle of whatever
   * transaction wrote that row. Resolves once armed. `action` must not use this node's connection.
   * SQLite: a temporary trigger calls a JavaScript function. PostgreSQL: a trigger makes the n-th
   * insert wait for an advisory lock a session of the test holds; once the insert waits, `action`
   * runs and the lock is let go (a crash in `action` terminates the waiting session instead).
   */
  async onInsert(table: string, n: number, action: () => void | Promise<void>): Promise<void> {
    const db = this.db;
    if (db.dialect === 'postgres') return onInsertPostgres(this.postgresUrl!, table, n, action);
    const sqlite = db.sqlite;
    let seen = 0;
    sqlite.function('world_insert_hook', () => {
      seen += 1;
      if (seen === n) void action();
      return null;
    });
    sqlite.exec(
      `CREATE TEMP TRIGGER world_insert_hook AFTER INSERT ON main.${table} BEGIN SELECT world_insert_hook(); END`,
    );
  }

  /**
   * Arms a crash inside the n-th insert into `table` (resolves once armed). `down` resolves when
   * the node is down, with how many rows of the table the crash state holds (fewer than were
   * inserted when the transaction in flight was lost with the process).
   */
  async crashAtInsert(table: string, n: number): Promise<{ down: Promise<{ committed: number }> }> {
    let armed!: (value: { committed: number }) => void;
    let failed!: (err: unknown) => void;
    const down = new Promise<{ committed: number }>((resolve, reject) => {
      armed = resolve;
      failed = reject;
    });
    const url = this.postgresUrl;
    await this.onInsert(table, n, async () => {
      try {
        const { result, done } = this.crash(
          url ? undefined : (state) => state.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number,
        );
        await done;
        const committed = url
          ? Number((await withClient(url, (c) => c.query(`SELECT count(*) AS n FROM ${table}`))).rows[0].n)
          : (result ?? 0);
        armed({ committed });
      } catch (err) {
        failed(err);
      }
    });
    return { down };
  }

  /** Starts the node again on its database file (after crash() or stop()). */
  async restart(options: { login?: boolean } = {}): Promise<void> {
    await this.disposing;
    this.disposing = undefined;
    await this.start(options);
  }
}

/** The application_name of the app's pool (openPostgres): its sessions, to terminate in a crash. */
const POOL_APPLICATION_NAME = 'yard-cloud';
/** The advisory lock the n-th insert waits for (onInsert on PostgreSQL). */
const HOOK_LOCK = 7_260_001;

async function withClient<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** onInsert on PostgreSQL (see there): a row trigger counting with a sequence, waiting on a lock held here. */
async function onInsertPostgres(
  url: string,
  table: string,
  n: number,
  action: () => void | Promise<void>,
): Promise<void> {
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  await holder.query('SELECT pg_advisory_lock($1)', [HOOK_LOCK]);
  await holder.query(`
    CREATE SEQUENCE IF NOT EXISTS world_insert_hook_seq;
    ALTER SEQUENCE world_insert_hook_seq RESTART;
    CREATE OR REPLACE FUNCTION world_insert_hook() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF nextval('world_insert_hook_seq') = ${Number(n)} THEN PERFORM pg_advisory_xact_lock_shared(${HOOK_LOCK}); END IF;
      RETURN NULL;
    END $$;
    DROP TRIGGER IF EXISTS world_insert_hook ON "${table}";
    CREATE TRIGGER world_insert_hook AFTER INSERT ON "${table}" FOR EACH ROW EXECUTE FUNCTION world_insert_hook();
  `);
  void (async () => {
    try {
      // Polls until the insert waits; a query error (the database dropped as the world closed) ends it.
      const deadline = Date.now() + 120_000;
      for (;;) {
        const waiting = await holder.query(
          `SELECT 1 FROM pg_locks l JOIN pg_database d ON d.oid = l.database
           WHERE d.datname = current_database() AND l.locktype = 'advisory' AND NOT l.granted
             AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1`,
          [HOOK_LOCK],
        );
        if (waiting.rows.length > 0) break;
        if (Date.now() > deadline) return;
        await new Promise((r) => setTimeout(r, 10));
      }
      await action();
    } catch {
      // The world is gone; a test waiting for the action fails on its own deadline.
    } finally {
      await holder.query('SELECT pg_advisory_unlock_all()').catch(() => {});
      await holder.end().catch(() => {});
    }
  })();
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
