import { randomBytes } from 'node:crypto';
import type { SyncFactoryDeps } from '../../shared/app.js';
import type { Config } from '../../shared/config.js';
import type { CoreParts } from '../../shared/core-parts.js';
import { sqliteOf } from '../../shared/db/database.js';
import type { Logger } from '../../shared/log.js';
import { exclusive } from '../../shared/sync/outbox.js';
import { CLOUD_SUBSCRIPTIONS } from '../../shared/sync/protocol.js';
import type { SyncComponent, SyncParts } from '../../shared/sync/runtime.js';
import { writeSiteSnapshot } from '../../shared/sync/snapshot.js';
import { syncApplier } from '../../shared/sync/sync-applier.js';
import {
  type MqttTransport,
  mqttTransportFrom,
  type SyncTransport,
  type TransportOption,
  transportOf,
} from '../../shared/sync/transport.js';
import { CloudSync } from './cloud-sync.js';

export interface CloudSyncFactoryOptions {
  /** The MQTT link; default an MqttTransport built from the config (cloudTransport). */
  transport?: TransportOption<SyncFactoryDeps>;
  /** More parts on the same transport (remote commands). */
  parts?: (deps: SyncFactoryDeps, transport: SyncTransport) => Omit<SyncParts, 'runtime'>;
}

/** createApp's `sync` for the cloud: the sites' change streams, and the parts given. */
export function cloudSync(options: CloudSyncFactoryOptions = {}): (deps: SyncFactoryDeps) => SyncParts {
  return (deps) => {
    const transport = transportOf(options.transport, deps, () =>
      cloudTransport(deps.config, deps.log, cloudNodeId(deps)),
    );
    const runtime = new CloudSync(deps, {
      transport,
      // PostgresChangeApplier when deps.db.dialect === 'postgres', else SQLite's inside exclusive().
      applier: syncApplier(deps),
      snapshot: (siteId) => exclusive(deps, () => writeSiteSnapshot(deps, siteId)),
    });
    const extra = options.parts?.(deps, transport) ?? {};
    return { ...extra, runtime, components: [...(extra.components ?? [])] satisfies SyncComponent[] };
  };
}

/** The cloud's MQTT client: every site's up/ topics and statuses. */
export function cloudTransport(
  config: Config,
  log: Logger,
  nodeId: string,
  url = config.mqtt.url,
): MqttTransport {
  if (!url) throw new Error('The cloud needs a broker URL (mqtt.url, or the embedded broker)');
  return mqttTransportFrom(config.mqtt, {
    url,
    clientId: `cloud-${nodeId}`,
    username: config.mqtt.username ?? 'cloud',
    subscriptions: [...CLOUD_SUBSCRIPTIONS],
    log,
  });
}

/**
 * A random id kept in the database (sync_meta 'node'): the same MQTT client id after a restart (the
 * broker keeps our persistent session), and nothing about the machine in it.
 */
export function cloudNodeId(deps: Pick<CoreParts, 'db'>): string {
  const sqlite = sqliteOf(deps.db, 'cloud sync');
  const row = sqlite.prepare("SELECT value FROM sync_meta WHERE name = 'node'").pluck().get() as
    | string
    | undefined;
  if (row) return row;
  const id = randomBytes(6).toString('hex');
  sqlite.prepare("INSERT OR IGNORE INTO sync_meta (name, value) VALUES ('node', ?)").run(id);
  return sqlite.prepare("SELECT value FROM sync_meta WHERE name = 'node'").pluck().get() as string;
}
