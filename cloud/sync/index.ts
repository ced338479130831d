import { randomBytes } from 'node:crypto';
import type { Config } from '../../shared/config.js';
import type { Core } from '../../shared/core.js';
import type { Logger } from '../../shared/log.js';
import { ChangeApplier } from '../../shared/sync/applier.js';
import { exclusive } from '../../shared/sync/outbox.js';
import { CLOUD_SUBSCRIPTIONS } from '../../shared/sync/protocol.js';
import type { SyncComponent, SyncParts } from '../../shared/sync/runtime.js';
import { writeSiteSnapshot } from '../../shared/sync/snapshot.js';
import { MqttTransport, type SyncTransport } from '../../shared/sync/transport.js';
import { CloudSync } from './cloud-sync.js';

export interface CloudSyncFactoryOptions {
  /** The MQTT link; default an MqttTransport built from the config (cloudTransport). */
  transport?: SyncTransport | ((core: Core) => SyncTransport);
  /** More parts on the same transport (remote commands). */
  parts?: (core: Core, transport: SyncTransport) => Omit<SyncParts, 'runtime'>;
}

/** createApp's `sync` for the cloud: the sites' change streams, and the parts given. */
export function cloudSync(options: CloudSyncFactoryOptions = {}): (core: Core) => SyncParts {
  return (core) => {
    const transport =
      typeof options.transport === 'function'
        ? options.transport(core)
        : (options.transport ?? cloudTransport(core.config, core.log, cloudNodeId(core)));
    const runtime = new CloudSync(core, {
      transport,
      applier: new ChangeApplier(core),
      snapshot: (siteId) => exclusive(core, () => writeSiteSnapshot(core, siteId)),
    });
    const extra = options.parts?.(core, transport) ?? {};
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
  return new MqttTransport({
    url,
    clientId: `cloud-${nodeId}`,
    username: config.mqtt.username ?? 'cloud',
    password: config.mqtt.password,
    caFile: config.mqtt.caFile,
    certFile: config.mqtt.certFile,
    keyFile: config.mqtt.keyFile,
    rejectUnauthorized: config.mqtt.rejectUnauthorized,
    keepaliveSec: config.mqtt.keepaliveSec,
    subscriptions: [...CLOUD_SUBSCRIPTIONS],
    log,
  });
}

/**
 * A random id kept in the database (sync_meta 'node'): the same MQTT client id after a restart (the
 * broker keeps our persistent session), and nothing about the machine in it.
 */
export function cloudNodeId(core: Core): string {
  const sqlite = core.db.sqlite;
  const row = sqlite.prepare("SELECT value FROM sync_meta WHERE name = 'node'").pluck().get() as
    | string
    | undefined;
  if (row) return row;
  const id = randomBytes(6).toString('hex');
  sqlite.prepare("INSERT OR IGNORE INTO sync_meta (name, value) VALUES ('node', ?)").run(id);
  return sqlite.prepare("SELECT value FROM sync_meta WHERE name = 'node'").pluck().get() as string;
}
