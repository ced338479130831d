import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createApp, type YardApp } from '../shared/app.js';
import { CAMERA_PROVIDER_KINDS } from '../shared/cameras/providers/index.js';
import { type Config, ConfigError, loadConfig } from '../shared/config.js';
import { type AppDatabase, openDatabase } from '../shared/db/database.js';
import { createLogger, type Logger } from '../shared/log.js';
import { NodeOnvifClient } from './cameras/onvif-client.js';
import { RelayHub } from './hardware/relay-hub.js';

export interface RunningEdge {
  yard: YardApp;
  db: AppDatabase;
  server: Server;
  url: string;
  log: Logger;
  /** The first admin's generated password, when this start created it (shown once). */
  generatedAdmin?: { username: string; password: string } | undefined;
  stop(): Promise<void>;
}

/**
 * Starts the edge role: database (migrated), gate drivers, HTTP API. Components start in order and
 * stop in reverse: server drains, background work flushes, relays go to their safe state, SQLite closes.
 */
export async function startEdge(
  config: Config,
  log: Logger = createLogger({ ...config.log }),
): Promise<RunningEdge> {
  const db = openDatabase(join(resolve(config.dataDir), 'yard.db'));
  // Each gate's relay binding picks its driver (GPIO, gpiod, serial board, simulated).
  const gates = new RelayHub({ log });
  const cameras = { onvif: new NodeOnvifClient(), providers: CAMERA_PROVIDER_KINDS };
  const yard = createApp({ db, config, gates, cameras, log });
  const admin = await yard.services.auth.ensureAdmin();
  if (admin.awaitingSync) {
    log.warn(
      'no users yet: this edge is linked to a cloud, which owns the users; logins work once the first sync has brought them',
    );
  }
  await yard.start();
  const server = await new Promise<Server>((ok, fail) => {
    const s = yard.app.listen(config.http.port, config.http.host, () => ok(s));
    s.once('error', fail);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.http.port;
  const host = config.http.host === '0.0.0.0' || config.http.host === '::' ? 'localhost' : config.http.host;
  const url = `http://${host}:${port}`;

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      log.info('shutting down');
      await closeServer(server);
      await yard.stop();
      await gates.stop();
      db.close();
      log.info('stopped');
    })();
    return stopping;
  };
  return {
    yard,
    db,
    server,
    url,
    log,
    generatedAdmin: admin.generatedPassword
      ? { username: admin.username!, password: admin.generatedPassword }
      : undefined,
    stop,
  };
}

/** Stop accepting, let in-flight requests finish (up to 5 s), then cut what is left (SSE streams). */
async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((r) => server.close(() => r()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), 5_000);
  timer.unref();
  await closed;
  clearTimeout(timer);
}

/** SIGTERM/SIGINT stop the edge cleanly; a second signal exits at once. */
export function stopOnSignals(edge: RunningEdge): void {
  let signalled = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (signalled) process.exit(1);
      signalled = true;
      edge.stop().then(
        () => process.exit(0),
        (err) => {
          edge.log.error({ err }, 'unclean shutdown');
          process.exit(1);
        },
      );
    });
  }
}

export function loadConfigOrExit(overrides: Record<string, unknown> = {}): Config {
  try {
    return loadConfig(process.env, overrides);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`${err.message}\nSet the variables above (see README, "Configuration") and start again.`);
      process.exit(2);
    }
    throw err;
  }
}

async function main(): Promise<void> {
  const config = loadConfigOrExit({ role: 'edge' });
  const edge = await startEdge(config);
  stopOnSignals(edge);
  edge.log.info({ url: edge.url, docs: `${edge.url}/docs`, siteId: config.siteId }, 'edge ready');
  if (edge.generatedAdmin) {
    console.log(
      `\nFirst start: created admin "${edge.generatedAdmin.username}" with one-time password: ${edge.generatedAdmin.password}\n` +
        'It is shown only now. Log in and change it (PATCH /api/user/{id}), or set YARD_ADMIN_PASSWORD before the first start.\n',
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    console.error(
      err instanceof Error && 'code' in err && err.code === 'EADDRINUSE'
        ? `Port in use: ${err.message}. Set YARD_HTTP_PORT to a free port.`
        : err,
    );
    process.exit(1);
  });
}
