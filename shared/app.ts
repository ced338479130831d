import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { EventBus } from './bus.js';
import type { CameraSources } from './cameras/types.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import type { Core } from './core.js';
import type { CoreParts } from './core-parts.js';
import type { AppDatabase } from './db/database.js';
import { PostgresListener } from './db/postgres-listener.js';
import { PostgresLiveRelay } from './db/postgres-live-relay.js';
import { ReadPool } from './db/read-pool.js';
import type { GateHardware } from './hardware.js';
import { errorHandler, notFoundHandler } from './http/error-handler.js';
import { ErrorStats } from './http/error-stats.js';
import { IdempotencyKeys } from './http/idempotency.js';
import { createMetrics } from './http/metrics.js';
import { openApiDocument } from './http/openapi-document.js';
import { requestLog } from './http/request-log.js';
import { type RouteInfo, RouteRegistrar } from './http/routes.js';
import { type Logger, silentLogger } from './log.js';
import { authenticate } from './modules/auth/routes.js';
import { registerModuleRoutes } from './modules/index.js';
import { registerPlatformRoutes, swaggerUiStatic } from './modules/platform/routes.js';
import { DeadLetterService } from './modules/sync/dead-letters.js';
import { registerSyncRoutes } from './modules/sync/routes.js';
import { SyncStatus } from './modules/sync/status.js';
import { wireSyncReactions } from './reactions.js';
import { rolePlugs } from './role-parts.js';
import { type RoleProfile, roleProfile } from './role-profile.js';
import { createServices, type Services } from './services.js';
import { ChangeCapture } from './sync/change-capture.js';
import { Hlc } from './sync/hlc.js';
import { heldYard, siteOfRow, writeGuard } from './sync/ownership.js';
import { PostgresCommitSignals } from './sync/postgres-commit-signals.js';
import type { SyncParts } from './sync/runtime.js';
import { cloudSide, edgeSide } from './sync/side.js';
import { type SyncApplier, syncApplier } from './sync/sync-applier.js';

export interface AppDeps {
  db: AppDatabase;
  /**
   * The heavy reads' worker pool, started and stopped by the owner (shared/start-role.ts). Without
   * one those reads run on the main thread (tests that need no workers).
   */
  reads?: ReadPool;
  config: Config;
  /** What differs by role, from the config (shared/start-role.ts builds it; tests leave it to createApp). */
  profile?: RoleProfile;
  gates: GateHardware;
  cameras: CameraSources;
  clock?: Clock;
  bus?: EventBus;
  log?: Logger;
  /**
   * Builds the sync parts once the services exist (edge/sync and cloud/sync provide factories).
   * Without it the app does no sync: a standalone edge, or a test that drives sync by hand.
   */
  sync?: ((deps: SyncFactoryDeps) => SyncParts) | undefined;
}

/**
 * What a sync factory builds from: the parts the change streams use, and the services the edge's
 * sync components call (cloud commands run on the gates and cameras; attachment bytes go up).
 */
export type SyncFactoryDeps = Pick<
  CoreParts,
  'config' | 'db' | 'kysely' | 'reads' | 'clock' | 'log' | 'hlc' | 'changes' | 'bus' | 'syncSide' | 'gates'
> &
  Pick<Services, 'hardware' | 'cameras' | 'attachments'>;

export interface YardApp {
  app: Express;
  core: Core;
  services: Services;
  /** Every registered route with its access rule (drives the auth tests and the docs). */
  routes: RouteInfo[];
  openapi(): Record<string, unknown>;
  /** The Idempotency-Key answers of routes with `idempotent` (pruned by start()). */
  idempotency: IdempotencyKeys;
  /**
   * Starts background work (error-figure flushing, location retention, automatic billing drafts) and hands the gates'
   * relay bindings to the hardware, which de-energises every relay.
   */
  start(): Promise<void>;
  /** Flushes and stops background work. Does not close the database (the owner of db does). */
  stop(): Promise<void>;
}

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// The web apps' build (`npm run build:ui`, run by npm install): dist/ui beside the sources, also when running from dist/.
const DEFAULT_UI_DIR = PROJECT_ROOT.endsWith('dist')
  ? join(PROJECT_ROOT, 'ui')
  : join(PROJECT_ROOT, 'dist', 'ui');

/**
 * The composition root: builds the express app and every service from explicit dependencies.
 * edge/main.ts and cloud/main.ts wire real adapters; tests pass fakes and a temporary database.
 */
export function createApp(deps: AppDeps): YardApp {
  const { config, db } = deps;
  const clock = deps.clock ?? systemClock;
  const log = deps.log ?? silentLogger();
  const bus = deps.bus ?? new EventBus();
  // The one place the role chooses behaviour: everything after this is handed the parts the role
  // profile names (shared/role-parts.ts, the side of sync), or a decision named after what it does.
  const profile = deps.profile ?? roleProfile(config);
  const syncSide = profile.role === 'cloud' ? cloudSide(db) : edgeSide(config.siteId);
  const hlc = new Hlc(clock, syncSide.origin, config.sync.maxClockAheadMs);
  // An edge logs its changes for the cloud; the cloud logs each change for the sites that need it.
  const changes = new ChangeCapture(
    hlc,
    clock,
    syncSide.peersFor,
    // Who may write what: a linked edge refuses cloud-owned records, the cloud edge-owned ones.
    // (siteOfRow names the site in the cloud's refusal; heldYard matters at a linked edge, on SQLite.)
    writeGuard(
      profile.syncMode,
      db.dialect === 'sqlite' ? siteOfRow(db.sqlite) : undefined,
      db.dialect === 'sqlite' ? heldYard(db.sqlite) : undefined,
    ),
  );
  const dataDir = resolve(config.dataDir);
  const paths = {
    data: dataDir,
    attachments: join(dataDir, 'attachments'),
    ui: resolve(config.uiDir ?? DEFAULT_UI_DIR),
  };
  mkdirSync(paths.attachments, { recursive: true });

  const errorStats = new ErrorStats(db.kysely, clock);
  const core = {
    config,
    db,
    kysely: db.kysely,
    reads: deps.reads ?? new ReadPool({ db, size: 0 }),
    clock,
    bus,
    log,
    hlc,
    changes,
    gates: deps.gates,
    cameras: deps.cameras,
    errorStats,
    paths,
    sync: { mode: profile.syncMode },
    syncSide,
    profile,
  } as Core;
  core.services = createServices(core, rolePlugs(profile));
  wireSyncReactions({
    bus,
    log,
    auth: core.services.auth,
    tasks: core.services.tasks,
    appointments: core.services.appointments,
    observers: changes.observers,
    db,
    // The cloud has no drivers: their sessions and heartbeats live at the edges.
    dispatchQueuedTasks: profile.drivers === 'here',
  });
  if (deps.sync) {
    const { hardware, cameras, attachments } = core.services;
    core.sync = { mode: core.sync.mode, ...deps.sync({ ...core, hardware, cameras, attachments }) };
  }
  const syncComponents = [...(core.sync.runtime ? [core.sync.runtime] : []), ...(core.sync.components ?? [])];

  // On PostgreSQL the cloud may run as several nodes: each hears what the others committed (cache
  // generations, change-log rows to send) and relays its live events to them, on one connection.
  const listener = db.dialect === 'postgres' ? new PostgresListener({ pool: db.pool, log }) : undefined;
  const liveRelay = listener ? new PostgresLiveRelay({ listener, bus, log }) : undefined;
  if (listener) new PostgresCommitSignals({ listener, changes: core.changes });

  const app = express();
  app.disable('x-powered-by');
  // Records carry their own ETags (versions); hashing every JSON body for a weak ETag costs more than it saves.
  app.set('etag', false);
  app.set('trust proxy', config.http.trustProxy);
  app.set('query parser', 'simple');

  const metrics = createMetrics();
  app.use(requestLog(log));
  app.use(metrics.middleware);
  app.use(errorStats.middleware);
  app.use(metricsKeyPrincipal(config), authenticate(core.services.auth));
  app.use('/docs', swaggerUiStatic());

  const docs = openApiDocument();
  const router = express.Router();
  // JSON bodies are read per route, after authentication (routes.ts): never for an anonymous caller.
  const idempotency = new IdempotencyKeys({
    kysely: db.kysely,
    clock,
    log,
    retentionHours: () => core.services.settings.get('idempotency.retentionHours'),
    maxKeysPerCaller: () => core.services.settings.get('idempotency.maxKeysPerCaller'),
    dialect: db.dialect,
  });
  const registrar = new RouteRegistrar(router, docs.registry, {
    validateResponses: config.validateResponses,
    jsonLimit: config.http.jsonLimit,
    idempotency,
  });

  // After core.sync is set: the status reads the sync runtime.
  const syncStatus = new SyncStatus(core);
  registerPlatformRoutes(
    registrar,
    { ...core, auth: core.services.auth, syncStatus },
    { json: docs.json, yaml: docs.yaml },
    () => metrics.registry.metrics(),
    metrics.registry.contentType,
  );
  registerSyncRoutes(registrar, { syncStatus, deadLetters: deadLetterService(core) });
  registerModuleRoutes(registrar, core);
  app.use(router);
  app.use(notFoundHandler);
  app.use(errorHandler(log));

  return {
    app,
    core,
    services: core.services,
    routes: registrar.table,
    openapi: docs.json,
    idempotency,
    start: async () => {
      errorStats.start();
      core.services.driverApp.start();
      idempotency.start();
      core.services.billing.autoDrafts?.start();
      core.services.noShowSweep?.start();
      await core.services.email.worker?.start();
      core.services.webhooks.dispatcher?.start();
      await listener?.start();
      await liveRelay?.start();
      await core.services.hardware.reconfigure();
      for (const c of syncComponents) await c.start();
    },
    stop: async () => {
      // Gate pulses answered when they energised end and are recorded before sync stops.
      await core.services.hardware.settled();
      for (const c of [...syncComponents].reverse()) await c.stop();
      core.services.driverApp.stop();
      idempotency.stop();
      await core.services.billing.autoDrafts?.stop();
      await core.services.noShowSweep?.stop();
      await core.services.email.worker?.stop();
      await core.services.webhooks.dispatcher?.stop();
      await liveRelay?.stop();
      await listener?.stop();
      await core.services.push.stop();
      await errorStats.stop();
    },
  };
}

/** Dead letters are retried and adopted by a change applier made on first use (it prepares its statements once). */
function deadLetterService(core: Core): DeadLetterService {
  let applier: SyncApplier | undefined;
  return new DeadLetterService({
    ...core,
    applier: () => (applier ??= syncApplier(core)),
    adoptsSiteRecords: core.syncSide.hub,
  });
}

/** Lets a Prometheus scraper use the configured metrics key as its bearer token, on /metrics only. */
function metricsKeyPrincipal(config: Config): express.RequestHandler {
  return (req, res, next) => {
    if (
      config.metricsKey &&
      req.path === '/metrics' &&
      req.get('authorization') === `Bearer ${config.metricsKey}`
    ) {
      res.locals.principal = {
        kind: 'api-key',
        id: 'metrics-key',
        name: 'metrics scraper',
        role: 'admin',
        yardIds: [],
      };
      res.locals.skipAuth = true;
    }
    next();
  };
}
