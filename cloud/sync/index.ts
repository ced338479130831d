import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { SyncFactoryDeps } from '../../shared/app.js';
import type { Config } from '../../shared/config.js';
import type { CoreParts } from '../../shared/core-parts.js';
import type { Logger } from '../../shared/log.js';
import { cloudSubscriptions } from '../../shared/sync/protocol.js';
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
import { PostgresSiteSenders, SoleSender } from './site-senders.js';

export interface CloudSyncFactoryOptions {
  /** The MQTT link; default an MqttTransport built from the config (cloudTransport). */
  transport?: TransportOption<SyncFactoryDeps>;
  /** More parts on the same transport (remote commands). */
  parts?: (deps: SyncFactoryDeps, transport: SyncTransport) => Omit<SyncParts, 'runtime'>;
}

/** createApp's `sync` for the cloud: the sites' change streams, and the parts given. */
export function cloudSync(options: CloudSyncFactoryOptions = {}): (deps: SyncFactoryDeps) => SyncParts {
  return (deps) => {
    // The default: the broker of the config (never the embedded one); on PostgreSQL one of several nodes.
    const transport = transportOf(options.transport, deps, () =>
      cloudTransport(
        deps.config,
        deps.log,
        cloudNodeId(deps),
        deps.config.mqtt.url,
        deps.db.dialect === 'postgres',
      ),
    );
    const runtime = new CloudSync(deps, {
      transport,
      // PostgresChangeApplier when deps.db.dialect === 'postgres', else SQLite's inside exclusive().
      applier: syncApplier(deps),
      nodeId: cloudNodeId(deps),
      snapshot: (siteId) => writeSiteSnapshot(deps, siteId),
      // On PostgreSQL there may be several nodes: one at a time sends to each site, and a batch that
      // overtook the one before it (at another node) waits for its turn, up to half the site's
      // wait for an ack before it resends.
      parkEarlyMs: deps.db.dialect === 'postgres' ? Math.min(5_000, deps.config.sync.ackTimeoutMs / 2) : 0,
      senders:
        deps.db.dialect === 'postgres'
          ? new PostgresSiteSenders({ pool: deps.db.pool, log: deps.log })
          : new SoleSender(),
    });
    const extra = options.parts?.(deps, transport) ?? {};
    return { ...extra, runtime, components: [...(extra.components ?? [])] satisfies SyncComponent[] };
  };
}

/**
 * The cloud's MQTT client: every site's up/ topics and statuses. `shared`: one of several nodes on
 * one PostgreSQL, behind an external broker (protocol.ts cloudSubscriptions).
 */
export function cloudTransport(
  config: Config,
  log: Logger,
  nodeId: string,
  url = config.mqtt.url,
  shared = false,
): MqttTransport {
  if (!url) throw new Error('The cloud needs a broker URL (mqtt.url, or the embedded broker)');
  return mqttTransportFrom(config.mqtt, {
    url,
    clientId: `cloud-${nodeId}`,
    username: config.mqtt.username ?? 'cloud',
    subscriptions: cloudSubscriptions(nodeId, shared),
    log,
  });
}

/**
 * This cloud node's id: its MQTT client id is `cloud-<id>`. The same id after a restart, so the
 * broker hands the restarted node the persistent session (and the QoS 1 messages queued for it)
 * it had, and nothing about the machine in it.
 * - SQLite: one database per node, so the id is kept in it (sync_meta 'node').
 * - PostgreSQL: the database is shared by every node, and two nodes with one client id would take
 *   the broker's session from each other in turn. The id is kept in the node's own data directory
 *   (`<dataDir>/cloud-node-id`): each node has its own (as it has its own config); a per-process
 *   random id instead would leave a dead session (and its share of queued messages) at the
 *   broker on every restart. Nodes must therefore not share a data directory (mount a shared
 *   attachments directory, not the whole data directory).
 */
export function cloudNodeId(deps: Pick<CoreParts, 'db' | 'config'>): string {
  if (deps.db.dialect === 'postgres') return nodeIdInDataDir(deps.config.dataDir);
  const sqlite = deps.db.sqlite;
  const row = sqlite.prepare("SELECT value FROM sync_meta WHERE name = 'node'").pluck().get() as
    | string
    | undefined;
  if (row) return row;
  sqlite.prepare("INSERT OR IGNORE INTO sync_meta (name, value) VALUES ('node', ?)").run(newNodeId());
  return sqlite.prepare("SELECT value FROM sync_meta WHERE name = 'node'").pluck().get() as string;
}

const NODE_ID_FILE = 'cloud-node-id';
const NODE_ID = /^[0-9a-f]{12}$/;

const newNodeId = () => randomBytes(6).toString('hex');

function nodeIdInDataDir(dataDir: string): string {
  const file = join(resolve(dataDir), NODE_ID_FILE);
  const stored = readNodeId(file);
  if (stored) return stored;
  mkdirSync(dirname(file), { recursive: true });
  // Written aside, then linked into place (fails if the file exists): of two processes starting
  // at once on one directory, one id wins whole and both read it.
  const aside = `${file}.${process.pid}.${newNodeId()}`;
  writeFileSync(aside, `${newNodeId()}\n`, { mode: 0o600 });
  try {
    linkSync(aside, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(aside, { force: true });
  }
  const id = readNodeId(file);
  if (!id)
    throw new Error(`${file} does not hold a cloud node id (12 hex digits): remove it to get a new one`);
  return id;
}

function readNodeId(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const id = text.trim();
  return NODE_ID.test(id) ? id : undefined;
}
