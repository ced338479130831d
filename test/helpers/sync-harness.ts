import { type EmbeddedBroker, startEmbeddedBroker } from '../../cloud/broker.js';
import { cloudSync, cloudTransport } from '../../cloud/sync/index.js';
import { edgeSync, edgeTransport } from '../../edge/sync/index.js';
import type { SyncFactoryDeps } from '../../shared/app.js';
import type { AppDatabase } from '../../shared/db/database.js';
import type { GateHardware } from '../../shared/hardware.js';
import { SiteRepo } from '../../shared/modules/sync/sites.js';
import {
  type EntityChecksums,
  entityChecksums,
  entityChecksumsPostgres,
} from '../../shared/sync/checksum.js';
import type { SyncTransport } from '../../shared/sync/transport.js';
import { type Faults, FaultyTransport } from './faulty-transport.js';
import { Client } from './http.js';
import type { TestDialect } from './postgres.js';
import { ADMIN, loginAdmin, startTestApp, type TestApp } from './test-app.js';
import { waitFor } from './wait-for.js';

export interface SyncNode {
  /** The app; its database is SQLite at an edge, the harness's dialect at the cloud. */
  app: TestApp<AppDatabase>;
  /** The transport the app's sync uses (a FaultyTransport around `mqtt` when faults were asked). */
  transport: SyncTransport;
  faulty: FaultyTransport | undefined;
  /** Admin client (at an edge: once the cloud's users have arrived, see loginEdge). */
  client: Client;
  siteId: string;
}

export interface HarnessOptions {
  /** Site ids of the edges (default one edge, 'site-a'). */
  sites?: string[];
  /** Config overrides (dotted paths) for every app, e.g. {'sync.ackTimeoutMs': 1000}. */
  config?: Record<string, unknown>;
  /** Faults on a node's inbound messages. */
  faults?: (role: 'cloud' | 'edge', siteId: string) => Faults | undefined;
  /** Log in at each edge once the cloud's admin has arrived (default true). */
  login?: boolean;
  /** An edge's gate hardware (default the simulated gates). */
  gates?: (siteId: string) => GateHardware | undefined;
  /** The cloud's database (default SQLite; PostgreSQL: a fresh database of the tests' server). Edges are always SQLite. */
  dialect?: TestDialect;
}

export interface SyncHarness {
  broker: EmbeddedBroker;
  cloud: SyncNode;
  edges: EdgeNode[];
  /** Starts one more edge for a site (registered at the cloud if new). */
  addEdge(siteId: string): Promise<EdgeNode>;
  /** Closes the edge (its database is gone) and starts a new appliance for the same site. */
  replaceEdge(node: EdgeNode): Promise<EdgeNode>;
  /** The edge loses its link (its transport stops) / gets it back. */
  cut(node: SyncNode): Promise<void>;
  restore(node: SyncNode): Promise<void>;
  /** Stops the broker (losing its sessions and retained messages) and starts a new one on the same port. */
  restartBroker(): Promise<void>;
  /** Waits until the edge and the cloud hold the same rows (count and checksum per entity). */
  converged(node: SyncNode, options?: { entities?: string[]; timeoutMs?: number }): Promise<ChecksumDiff>;
  close(): Promise<void>;
}

/** An edge: always on SQLite. */
export interface EdgeNode extends SyncNode {
  app: TestApp;
}

export type ChecksumDiff = Record<string, { cloud: string; edge: string }>;

/** Tests run faster with a short ack timeout; production keeps 10 s. */
const DEFAULT_CONFIG = { 'sync.ackTimeoutMs': 1_500, 'sync.commandTimeoutMs': 3_000 };

/**
 * A real MQTT broker (in-process Aedes on a free loopback port, no auth), a cloud app and N edge
 * apps, each on its own SQLite file and HTTP port, linked through the broker with the real sync
 * runtimes. The sites are registered in the cloud's `site` table before the edges start.
 */
export async function startSyncHarness(options: HarnessOptions = {}): Promise<SyncHarness> {
  const config = { ...DEFAULT_CONFIG, ...options.config };
  let broker = await startEmbeddedBroker({ port: 0, host: '127.0.0.1' });
  const url = broker.url;
  const cloud = await startNode('cloud', 'cloud', url, config, options.faults, undefined, options.dialect);
  const sites = new SiteRepo(cloud.app.core.kysely);
  const edges: EdgeNode[] = [];

  const addEdge = async (siteId: string) => {
    if (!(await sites.get(siteId))) {
      await sites.create({ id: siteId, name: `Site ${siteId}`, password: 'placeholder-password' });
    }
    const node = (await startNode(
      'edge',
      siteId,
      url,
      config,
      options.faults,
      options.gates?.(siteId),
    )) as EdgeNode;
    edges.push(node);
    if (options.login ?? true) {
      // Wait for the row, then log in once: failed logins count against the login rate limit.
      await waitFor(
        () => node.app.db.sqlite.prepare('SELECT 1 FROM app_user WHERE username = ?').get(ADMIN.username),
        { timeoutMs: 15_000, what: `the cloud's admin user at edge ${siteId}` },
      );
      node.client.token = await loginAdmin(node.app.url);
    }
    return node;
  };
  for (const siteId of options.sites ?? ['site-a']) await addEdge(siteId);

  return {
    get broker() {
      return broker;
    },
    cloud,
    edges,
    addEdge,
    async replaceEdge(node) {
      edges.splice(edges.indexOf(node), 1);
      await node.app.close();
      return addEdge(node.siteId);
    },
    async cut(node) {
      // Kill the connection at the broker first: the broker then publishes the edge's will
      // (offline), as when a real link dies. Stopping the client first would send DISCONNECT,
      // which cancels the will.
      const clientId = node.siteId === 'cloud' ? undefined : `edge-${node.siteId}`;
      const clients = (broker.aedes as unknown as { clients: Record<string, { conn: { destroy(): void } }> })
        .clients;
      if (clientId) clients[clientId]?.conn.destroy();
      await node.transport.stop();
    },
    restore: (node) => node.transport.start(),
    async restartBroker() {
      const port = broker.port;
      await broker.stop();
      broker = await startEmbeddedBroker({ port, host: '127.0.0.1' });
    },
    converged: (node, opts = {}) => converged(cloud, node, opts),
    async close() {
      for (const node of [...edges].reverse()) await node.app.close();
      await cloud.app.close();
      await broker.stop();
    },
  };
}

async function startNode(
  role: 'cloud' | 'edge',
  siteId: string,
  url: string,
  config: Record<string, unknown>,
  faults: HarnessOptions['faults'],
  gates?: GateHardware,
  dialect: TestDialect = 'sqlite',
): Promise<SyncNode> {
  const holder: { transport?: SyncTransport; faulty?: FaultyTransport } = {};
  const makeTransport = (core: SyncFactoryDeps): SyncTransport => {
    const mqtt =
      role === 'cloud'
        ? cloudTransport(core.config, core.log, `test-${siteId}`)
        : edgeTransport(core.config, core.log);
    const wanted = faults?.(role, siteId);
    holder.faulty = wanted ? new FaultyTransport(mqtt, wanted) : undefined;
    holder.transport = holder.faulty ?? mqtt;
    return holder.transport;
  };
  const env: Record<string, string> = { YARD_ROLE: role, YARD_MQTT_URL: url };
  if (role === 'edge') env.YARD_SITE_ID = siteId;
  const app = await startTestApp({
    dialect,
    env,
    config,
    sync: role === 'cloud' ? cloudSync({ transport: makeTransport }) : edgeSync({ transport: makeTransport }),
    login: role === 'cloud',
    ...(gates ? { gates } : {}),
  });
  return {
    app,
    transport: holder.transport!,
    faulty: holder.faulty,
    client: new Client(app.url, role === 'cloud' ? app.adminToken : undefined),
    siteId,
  };
}

/** Per synced entity, the rows' count and checksum, on either database. */
export function checksumsOf(db: AppDatabase): Promise<EntityChecksums> {
  return db.dialect === 'sqlite'
    ? Promise.resolve(entityChecksums(db.sqlite))
    : entityChecksumsPostgres(db.pool);
}

/** Entities whose checksums differ between the two sides (empty when they hold the same rows). */
export async function checksumDiff(
  cloud: SyncNode,
  edge: SyncNode,
  entities?: string[],
): Promise<ChecksumDiff> {
  const a = await checksumsOf(cloud.app.db);
  const b = await checksumsOf(edge.app.db);
  const diff: ChecksumDiff = {};
  for (const entity of entities ?? Object.keys(a)) {
    const x = a[entity];
    const y = b[entity];
    const cloudText = `${x?.count}:${x?.checksum}`;
    const edgeText = `${y?.count}:${y?.checksum}`;
    if (cloudText !== edgeText) diff[entity] = { cloud: cloudText, edge: edgeText };
  }
  return diff;
}

async function converged(
  cloud: SyncNode,
  edge: SyncNode,
  opts: { entities?: string[]; timeoutMs?: number },
): Promise<ChecksumDiff> {
  let last: ChecksumDiff = {};
  await waitFor(
    async () => {
      last = await checksumDiff(cloud, edge, opts.entities);
      return Object.keys(last).length === 0;
    },
    {
      timeoutMs: opts.timeoutMs ?? 15_000,
      intervalMs: 50,
      what: () => `cloud and edge ${edge.siteId} holding the same rows (differing: ${JSON.stringify(last)})`,
    },
  );
  return last;
}
