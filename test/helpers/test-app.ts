import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import { NoRelays } from '../../cloud/no-relays.js';
import { SimulatedGates } from '../../edge/hardware/simulated-gates.js';
import { type AppDeps, createApp, type YardApp } from '../../shared/app.js';
import { NodeOnvifClient } from '../../shared/cameras/onvif-client.js';
import { CAMERA_PROVIDER_KINDS } from '../../shared/cameras/providers/index.js';
import type { CameraSources } from '../../shared/cameras/types.js';
import type { ManualClock } from '../../shared/clock.js';
import { loadConfig } from '../../shared/config.js';
import { type AppDatabase, openDatabase, type SqliteDatabase } from '../../shared/db/database.js';
import { migratePostgres } from '../../shared/db/migrate-postgres.js';
import { openPostgres } from '../../shared/db/postgres-database.js';
import { ReadPool } from '../../shared/db/read-pool.js';
import type { GateHardware } from '../../shared/hardware.js';
import type { Logger } from '../../shared/log.js';
import type { TestDialect } from './postgres.js';

export const ADMIN = { username: 'admin', password: 'admin-password-1' };

/** A test app; its database is SQLite unless it was started with `dialect: 'postgres'`. */
export interface TestApp<D extends AppDatabase = SqliteDatabase> extends YardApp {
  db: D;
  /** On PostgreSQL: the database's URL (another node can join it with `postgresUrl`). */
  postgresUrl?: string | undefined;
  dir: string;
  /** The simulated gates (not wired into the app when options.gates was given). */
  gates: SimulatedGates;
  /** Base URL of the app listening on 127.0.0.1 (real HTTP). */
  url: string;
  /** Bearer token of the first admin. */
  adminToken: string;
  close(): Promise<void>;
}

/**
 * Boots the app through createApp on a temporary SQLite file, listening on a free loopback port,
 * with the first admin created and logged in. Responses are checked against their schemas.
 */
type TestAppOptions = {
  clock?: ManualClock;
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Gate hardware for the app (e.g. a faulting fake); default the simulated gates in `gates`. */
  gates?: GateHardware;
  /** Camera adapters; default the real ONVIF client (probing nowhere) and the real provider kinds. */
  cameras?: CameraSources;
  /** Sync parts factory (see createApp); with it the app is started (yard.start()). */
  sync?: AppDeps['sync'];
  /** Run yard.start() (relays, background work, sync). Default: only when `sync` is given. */
  start?: boolean;
  /**
   * Create the first admin and log in (default true). A linked edge gets its users from the cloud:
   * pass false and log in once they have arrived.
   */
  login?: boolean;
  /** The app's logger (default silent). */
  log?: Logger;
  /** Run the heavy reads in this many worker threads (default: none, on the main thread). */
  readWorkers?: number;
  /** The database: SQLite in the temporary folder (default), or a fresh PostgreSQL database of the tests' server. */
  dialect?: TestDialect;
  /**
   * With dialect 'postgres': join this existing database instead of a fresh one (another node of
   * the same cloud); it is left for its creator to drop.
   */
  postgresUrl?: string;
};

export function startTestApp(options?: TestAppOptions & { dialect?: 'sqlite' }): Promise<TestApp>;
export function startTestApp(options: TestAppOptions): Promise<TestApp<AppDatabase>>;
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp<AppDatabase>> {
  const dir = mkdtempSync(join(tmpdir(), 'yard-test-'));
  const config = loadConfig(
    {
      YARD_DATA_DIR: dir,
      YARD_ADMIN_USER: ADMIN.username,
      YARD_ADMIN_PASSWORD: ADMIN.password,
      ...options.env,
    },
    { validateResponses: true, ...options.config },
  );
  // Imported only here: postgres.ts reads vitest's provided server, and benchmarks (no vitest)
  // start SQLite test apps through this file too.
  const postgres =
    options.dialect === 'postgres' && !options.postgresUrl
      ? await (await import('./postgres.js')).createTestDatabase()
      : undefined;
  const postgresUrl = options.postgresUrl ?? postgres?.url;
  const db: AppDatabase = postgresUrl
    ? openPostgres({ url: postgresUrl, poolMax: 10, statementTimeoutMs: 0 })
    : openDatabase(join(dir, 'yard.db'));
  if (db.dialect === 'postgres') await migratePostgres(db.pool);
  const gates = new SimulatedGates(undefined, 0);
  const reads = new ReadPool({ db, size: options.readWorkers ?? 0 });
  await reads.start();
  const yard = createApp({
    db,
    reads,
    config,
    // As cloud/main.ts: the cloud is given no relays (its gates' relays are at the sites).
    gates: options.gates ?? (config.role === 'cloud' ? new NoRelays() : gates),
    cameras: options.cameras ?? {
      // A probe to the loopback discard port finds nothing, quickly, without touching the LAN.
      onvif: new NodeOnvifClient({ probeAddress: '127.0.0.1', probePort: 9 }),
      providers: CAMERA_PROVIDER_KINDS,
    },
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.sync ? { sync: options.sync } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const login = options.login ?? true;
  if (login) await yard.services.auth.ensureAdmin();
  if (options.start ?? options.sync !== undefined) await yard.start();
  const server = await listen(yard.app);
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const token = login ? await loginAdmin(url) : '';
  return {
    ...yard,
    db,
    postgresUrl,
    dir,
    gates,
    url,
    adminToken: token,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await yard.stop();
      await reads.stop();
      await db.close();
      await postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Logs the test admin in; throws with the answer when that fails. */
export async function loginAdmin(url: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  if (res.status !== 200) throw new Error(`test admin login failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

function listen(app: Express) {
  return new Promise<import('node:http').Server>((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}
