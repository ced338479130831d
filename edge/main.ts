import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createApp, type YardApp } from '../shared/app.js';
import { CAMERA_PROVIDER_KINDS } from '../shared/cameras/providers/index.js';
import { type Config, syncMode } from '../shared/config.js';
import { type AppDatabase, openDatabase } from '../shared/db/database.js';
import { createLogger, type Logger } from '../shared/log.js';
import { closeServer, listenHttp, loadConfigOrExit, startFailure, stopOnSignals } from '../shared/process.js';
import { warnPlaintextLinks } from '../shared/tls-warnings.js';
import { NodeOnvifClient } from './cameras/onvif-client.js';
import { RelayHub } from './hardware/relay-hub.js';
import { BlobUploader } from './sync/blob-uploader.js';
import { CommandHandler } from './sync/command-handler.js';
import { edgeSync } from './sync/index.js';

export { loadConfigOrExit, stopOnSignals };

export interface RunningEdge {
  yard: YardApp;
  db: AppDatabase;
  server: Server;
  url: string;
  log: Logger;
  /** The first admin's generated password, when this start created it (shown once). */
  generatedAdmin?: { username: string; password: string } | undefined;
  stop(): Promise<void>;
  /** Every relay to its safe (de-energised) state: part of stop(), alone when a stop hangs. */
  safeState(): Promise<void>;
}

/**
 * Starts the edge role: database (migrated), gate drivers, HTTP API and, when linked to a cloud
 * (mqtt.url), the sync link: change streams, commands from the cloud, attachment uploads.
 * Components start in order and stop in reverse: server drains, sync and background work stop,
 * relays go to their safe state, SQLite closes.
 */
export async function startEdge(
  config: Config,
  log: Logger = createLogger({ ...config.log }),
): Promise<RunningEdge> {
  warnPlaintextLinks(config, log);
  const db = openDatabase(join(resolve(config.dataDir), 'yard.db'));
  // Each gate's relay binding picks its driver (GPIO, gpiod, serial board, simulated).
  const gates = new RelayHub({ log });
  const cameras = { onvif: new NodeOnvifClient(), providers: CAMERA_PROVIDER_KINDS };
  const linked = syncMode(config) === 'linked';
  if (linked && !config.cloudUrl) {
    log.warn('YARD_CLOUD_URL is not set: attachment bytes will not be uploaded to the cloud');
  }
  const sync = linked
    ? edgeSync({
        components: (core, transport) => [
          new CommandHandler(core, transport),
          ...(config.cloudUrl ? [new BlobUploader(core)] : []),
        ],
      })
    : undefined;
  const yard = createApp({ db, config, gates, cameras, log, ...(sync ? { sync } : {}) });
  const admin = await yard.services.auth.ensureAdmin();
  if (admin.awaitingSync) {
    log.warn(
      'no users yet: this edge is linked to a cloud, which owns the users; logins work once the first sync has brought them',
    );
  }
  await yard.start();
  const { server, url } = await listenHttp(yard.app, config);

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
    safeState: () => gates.stop(),
  };
}

async function main(): Promise<void> {
  const config = loadConfigOrExit({ role: 'edge' });
  const edge = await startEdge(config);
  stopOnSignals(edge);
  edge.log.info(
    { url: edge.url, docs: `${edge.url}/docs`, siteId: config.siteId, sync: syncMode(config) },
    'edge ready',
  );
  if (edge.generatedAdmin) {
    console.log(
      `\nFirst start: created admin "${edge.generatedAdmin.username}" with one-time password: ${edge.generatedAdmin.password}\n` +
        'It is shown only now. Log in and change it (PATCH /api/user/{id}), or set YARD_ADMIN_PASSWORD before the first start.\n',
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    console.error(startFailure(err));
    process.exit(1);
  });
}
