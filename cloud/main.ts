import type { Config } from '../shared/config.js';
import { createLogger, type Logger } from '../shared/log.js';
import { loadConfigOrExit, printGeneratedAdmin, runAsEntryPoint, stopOnSignals } from '../shared/process.js';
import { type RunningRole, startRole } from '../shared/start-role.js';
import { type CloudBroker, startCloudBroker } from './broker.js';
import { NoRelays } from './no-relays.js';
import { cloudNodeId, cloudSync, cloudTransport } from './sync/index.js';
import { RemoteCommandsClient } from './sync/remote-commands.js';

export interface RunningCloud extends RunningRole {
  /** The embedded broker, when the config names no external one (mqtt.url). */
  broker?: CloudBroker | undefined;
}

/**
 * Starts the cloud role (shared/start-role.ts): its database holds every site's data; the embedded
 * MQTT broker runs unless mqtt.url names one (Mosquitto in production); the sync link reaches every
 * site. On stop the broker closes after the app has stopped, before SQLite closes.
 */
export async function startCloud(
  config: Config,
  log: Logger = createLogger({ ...config.log }),
): Promise<RunningCloud> {
  let broker: CloudBroker | undefined;
  const running = await startRole(config, log, (db) => ({
    components: config.mqtt.url
      ? []
      : [
          {
            name: 'broker',
            start: async () => {
              broker = await startCloudBroker({ config, kysely: db.kysely, log });
            },
            stop: async () => broker?.stop(),
          },
        ],
    gates: new NoRelays(),
    sync: cloudSync({
      transport: (deps) =>
        broker
          ? cloudTransport(
              { ...config, mqtt: { ...config.mqtt, ...broker.cloudClient } },
              log,
              cloudNodeId(deps),
              broker.cloudClient.url,
            )
          : undefined, // the default: the external broker; on PostgreSQL one of several nodes
      parts: (deps, transport) => {
        const commands = new RemoteCommandsClient(deps, transport, cloudNodeId(deps));
        return { commands, components: [commands] };
      },
    }),
  }));
  return { ...running, broker };
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
  if (cloud.broker && config.database.url) {
    // Several nodes share one PostgreSQL and spread the sites' batches over themselves through a
    // shared subscription, which Aedes does not offer: with it the cloud is one node.
    cloud.log.warn(
      'the embedded MQTT broker makes this cloud a single node: for several nodes on one PostgreSQL, run Mosquitto and set YARD_MQTT_URL',
    );
  }
  printGeneratedAdmin(cloud.generatedAdmin);
}

runAsEntryPoint(import.meta.url, main);
