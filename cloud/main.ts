import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NodeOnvifClient } from '../edge/cameras/onvif-client.js';
import { createApp, type YardApp } from '../shared/app.js';
import { CAMERA_PROVIDER_KINDS } from '../shared/cameras/providers/index.js';
import type { Config } from '../shared/config.js';
import { type AppDatabase, openDatabase } from '../shared/db/database.js';
import { createLogger, type Logger } from '../shared/log.js';
import { closeServer, listenHttp, loadConfigOrExit, startFailure, stopOnSignals } from '../shared/process.js';
import { warnPlaintextLinks } from '../shared/tls-warnings.js';
import { type CloudBroker, startCloudBroker } from './broker.js';
import { NoRelays } from './no-relays.js';
import { cloudNodeId, cloudSync, cloudTransport } from './sync/index.js';
import { RemoteCommandsClient } from './sync/remote-commands.js';

export interface RunningCloud {
  yard: YardApp;
  db: AppDatabase;
  server: Server;
  url: string;
  log: Logger;
  /** The embedded broker, when the config names no external one (mqtt.url). */
  broker?: CloudBroker | undefined;
  generatedAdmin?: { username: string; password: string } | undefined;
  stop(): Promise<void>;
}

/**
 * Starts the cloud role: its database (every site's data), the embedded MQTT broker unless mqtt.url
 * names one (Mosquitto in production), the sync link to every site, and the HTTP API. Stops in
 * reverse: HTTP drains, sync stops, the broker closes, SQLite closes.
 */
export async function startCloud(
  config: Config,
  log: Logger = createLogger({ ...config.log }),
): Promise<RunningCloud> {
  warnPlaintextLinks(config, log);
  const db = openDatabase(join(resolve(config.dataDir), 'yard.db'));
  const broker = config.mqtt.url ? undefined : await startCloudBroker({ config, kysely: db.kysely, log });
  const sync = cloudSync({
    transport: (core) =>
      broker
        ? cloudTransport(
            { ...config, mqtt: { ...config.mqtt, ...broker.cloudClient } },
            log,
            cloudNodeId(core),
            broker.cloudClient.url,
          )
        : cloudTransport(config, log, cloudNodeId(core)),
    parts: (core, transport) => {
      const commands = new RemoteCommandsClient(core, transport);
      return { commands, components: [commands] };
    },
  });
  // The cloud reaches provider cameras itself; ONVIF cameras only through their edge (down/cmd).
  const cameras = { onvif: new NodeOnvifClient(), providers: CAMERA_PROVIDER_KINDS };
  const yard = createApp({ db, config, gates: new NoRelays(), cameras, log, sync });
  const admin = await yard.services.auth.ensureAdmin();
  await yard.start();
  const { server, url } = await listenHttp(yard.app, config);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      log.info('shutting down');
      await closeServer(server);
      await yard.stop();
      await broker?.stop();
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
    broker,
    generatedAdmin: admin.generatedPassword
      ? { username: admin.username!, password: admin.generatedPassword }
      : undefined,
    stop,
  };
}

async function main(): Promise<void> {
  const config = loadConfigOrExit({ role: 'cloud' });
  const cloud = await startCloud(config);
  stopOnSignals(cloud);
  cloud.log.info(
    {
      url: cloud.url,
      docs: `${cloud.url}/docs`,
      broker: cloud.broker ? `embedded, port ${cloud.broker.port}` : 'external',
    },
    'cloud ready',
  );
  if (cloud.generatedAdmin) {
    console.log(
      `\nFirst start: created admin "${cloud.generatedAdmin.username}" with one-time password: ${cloud.generatedAdmin.password}\n` +
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
