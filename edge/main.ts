import type { Config } from '../shared/config.js';
import { stopOnly } from '../shared/lifecycle.js';
import { createLogger, type Logger } from '../shared/log.js';
import { loadConfigOrExit, printGeneratedAdmin, runAsEntryPoint, stopOnSignals } from '../shared/process.js';
import { type RunningRole, startRole } from '../shared/start-role.js';
import { RelayHub } from './hardware/relay-hub.js';
import { BlobUploader } from './sync/blob-uploader.js';
import { CommandHandler } from './sync/command-handler.js';
import { edgeSync } from './sync/index.js';

export { loadConfigOrExit, stopOnSignals };

export interface RunningEdge extends RunningRole {
  /** Every relay to its safe (de-energised) state: part of stop(), alone when a stop hangs. */
  safeState(): Promise<void>;
}

/**
 * Starts the edge role (shared/start-role.ts) with its gate drivers and, when linked to a cloud
 * (mqtt.url), the sync link: change streams, commands from the cloud, attachment uploads. On stop
 * the relays go to their safe state after the app has stopped, before SQLite closes.
 */
export async function startEdge(
  config: Config,
  log: Logger = createLogger({ ...config.log }),
): Promise<RunningEdge> {
  // Each gate's relay binding picks its driver (GPIO, gpiod, serial board, simulated).
  const gates = new RelayHub({ log });
  const running = await startRole(config, log, (_db, profile) => {
    const linked = profile.syncMode === 'linked';
    if (linked && !config.cloudUrl) {
      log.warn('YARD_CLOUD_URL is not set: attachment bytes will not be uploaded to the cloud');
    }
    return {
      components: [stopOnly('relays', () => gates.stop())],
      gates,
      sync: linked
        ? edgeSync({
            components: (deps, transport) => [
              new CommandHandler(deps, transport),
              ...(config.cloudUrl ? [new BlobUploader(deps)] : []),
            ],
          })
        : undefined,
    };
  });
  return { ...running, safeState: () => gates.stop() };
}

async function main(): Promise<void> {
  const config = loadConfigOrExit({ role: 'edge' });
  const edge = await startEdge(config);
  stopOnSignals(edge);
  edge.log.info(
    { url: edge.url, docs: `${edge.url}/docs`, siteId: config.siteId, sync: edge.yard.core.profile.syncMode },
    'edge ready',
  );
  printGeneratedAdmin(edge.generatedAdmin);
}

runAsEntryPoint(import.meta.url, main);
