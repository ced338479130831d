import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SyncFactoryDeps } from '../../shared/app.js';
import type { Config } from '../../shared/config.js';
import type { Logger } from '../../shared/log.js';
import { topicsFor } from '../../shared/sync/protocol.js';
import type { SyncComponent, SyncParts } from '../../shared/sync/runtime.js';
import { syncApplier } from '../../shared/sync/sync-applier.js';
import {
  type MqttTransport,
  mqttTransportFrom,
  type SyncTransport,
  type TransportOption,
  transportOf,
} from '../../shared/sync/transport.js';
import { EdgeSync, offlineStatus } from './edge-sync.js';

export interface EdgeSyncFactoryOptions {
  /** The MQTT link; default an MqttTransport built from the config (edgeTransport). */
  transport?: TransportOption<SyncFactoryDeps>;
  /** More components on the same transport (command handler, attachment uploads). */
  components?: (deps: SyncFactoryDeps, transport: SyncTransport) => SyncComponent[];
  /** Milliseconds between status updates while the queue changes. */
  statusEveryMs?: number;
}

/** createApp's `sync` for a linked edge: the change streams to the cloud and the components given. */
export function edgeSync(options: EdgeSyncFactoryOptions = {}): (deps: SyncFactoryDeps) => SyncParts {
  return (deps) => {
    const version = appVersion();
    const transport = transportOf(options.transport, deps, () =>
      edgeTransport(deps.config, deps.log, version),
    );
    const runtime = new EdgeSync(deps, {
      transport,
      applier: syncApplier(deps),
      version,
      ...(options.statusEveryMs !== undefined ? { statusEveryMs: options.statusEveryMs } : {}),
    });
    return { runtime, components: options.components?.(deps, transport) ?? [] };
  };
}

/** The edge's MQTT client: its own topics only, and a will that marks the site offline. */
export function edgeTransport(config: Config, log: Logger, version = appVersion()): MqttTransport {
  const url = config.mqtt.url;
  if (!url) throw new Error('A linked edge needs mqtt.url (YARD_MQTT_URL)');
  const topics = topicsFor(config.siteId);
  return mqttTransportFrom(config.mqtt, {
    url,
    clientId: `edge-${config.siteId}`,
    username: config.mqtt.username ?? config.siteId,
    subscriptions: [topics.downChanges, topics.downAck, topics.downCmd],
    will: { topic: topics.status, payload: JSON.stringify(offlineStatus(version, Date.now())) },
    log,
  });
}

/** package.json's version (looked up from here, so it works from the sources and from dist/). */
export function appVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'yard-service' && pkg.version) return pkg.version;
    }
    dir = dirname(dir);
  }
  return '0.0.0';
}
