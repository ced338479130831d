import type { EmbeddedBroker } from '../../../cloud/broker.js';
import { RemoteCommandsClient } from '../../../cloud/sync/remote-commands.js';
import { CommandHandler } from '../../../edge/sync/command-handler.js';
import type { CameraSources } from '../../../shared/cameras/types.js';
import type { GateHardware } from '../../../shared/hardware.js';
import { CLOUD_SUBSCRIPTIONS } from '../../../shared/sync/protocol.js';
import type { SyncComponent } from '../../../shared/sync/runtime.js';
import { MqttTransport } from '../../../shared/sync/transport.js';
import { Client, rows } from '../../helpers/http.js';
import { ADMIN, loginAdmin, startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * A cloud app and edge apps wired with only the command channel (cloud/sync/remote-commands.ts,
 * edge/sync/command-handler.ts) over a real broker. The change streams are another component; until
 * they are wired here, the rows each side needs from the other are copied with raw SQL (the write
 * guard refuses them through the API: yards and users are cloud-owned at a linked edge, gates and
 * ONVIF cameras edge-owned at the cloud), exactly as the edge or cloud stored them.
 */

export const COMMAND_TIMEOUT_MS = 1500;

/** Polls until cond() is truthy; fails with `what` after timeoutMs. */
export async function waitFor<T>(
  cond: () => T | Promise<T>,
  { timeoutMs = 5000, what = 'condition' }: { timeoutMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await cond();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Starts and stops a transport as a sync component (the change-stream runtime does this in the
 * product). start() resolves once the first connect has subscribed, so nothing sent after it is missed.
 */
export class TransportLink implements SyncComponent {
  connects = 0;
  constructor(readonly transport: MqttTransport) {
    transport.onConnect(() => {
      this.connects += 1;
    });
  }
  async start(): Promise<void> {
    const before = this.connects;
    await this.transport.start();
    await waitFor(() => this.connects > before, { what: 'mqtt connect + subscribe' });
  }
  async stop(): Promise<void> {
    await this.transport.stop();
  }
}

export function mqttTransport(url: string, clientId: string, subscriptions: string[], log: MqttTransportLog) {
  return new MqttTransport({ url, clientId, subscriptions, log, reconnectMs: 100 });
}
type MqttTransportLog = ConstructorParameters<typeof MqttTransport>[0]['log'];

export interface Cloud {
  app: TestApp;
  link: TransportLink;
  commands: RemoteCommandsClient;
  admin: Client;
}

export async function startCloud(brokerUrl: string): Promise<Cloud> {
  let link: TransportLink | undefined;
  let commands: RemoteCommandsClient | undefined;
  const app = await startTestApp({
    env: { YARD_ROLE: 'cloud', YARD_SYNC_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS) },
    sync: (core) => {
      link = new TransportLink(mqttTransport(brokerUrl, 'cloud-test', CLOUD_SUBSCRIPTIONS, core.log));
      commands = new RemoteCommandsClient(core, link.transport);
      return { commands, components: [link, commands] };
    },
  });
  return { app, link: link!, commands: commands!, admin: new Client(app.url, app.adminToken) };
}

export interface Edge {
  app: TestApp;
  link: TransportLink;
  handler: CommandHandler;
  siteId: string;
  admin: Client;
  yardId: string;
}

/**
 * A linked edge for a new yard of the cloud: the yard is made at the cloud (siteId = the edge's),
 * and the cloud's admin user and yard rows are copied to the edge (what the change stream would do).
 */
export async function startEdge(
  brokerUrl: string,
  cloud: Cloud,
  siteId: string,
  options: { gates?: GateHardware; cameras?: CameraSources } = {},
): Promise<Edge> {
  let link: TransportLink | undefined;
  let handler: CommandHandler | undefined;
  const app = await startTestApp({
    env: { YARD_MQTT_URL: brokerUrl, YARD_SITE_ID: siteId },
    login: false,
    ...options,
    sync: (core) => {
      link = new TransportLink(
        mqttTransport(brokerUrl, `edge-${siteId}`, [`yards/${siteId}/down/#`], core.log),
      );
      handler = new CommandHandler(core, link.transport);
      return { components: [link, handler] };
    },
  });
  const yard = await cloud.admin.post('/api/yard', {
    code: siteId
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, '')
      .slice(0, 10),
    name: `Yard of ${siteId}`,
    timeZone: 'Europe/Berlin',
    siteId,
  });
  if (yard.status !== 201) throw new Error(`yard at the cloud: ${yard.status} ${yard.text}`);
  const adminId = rows(cloud.app.db, 'SELECT id FROM app_user WHERE username = ?', ADMIN.username)[0].id;
  copyRow(cloud.app, app, 'app_user', adminId);
  copyRow(cloud.app, app, 'yard', yard.body.id);
  const token = await loginAdmin(app.url);
  return {
    app,
    link: link!,
    handler: handler!,
    siteId,
    admin: new Client(app.url, token),
    yardId: yard.body.id,
  };
}

/** A gate with a simulated relay made at the edge, and the cloud's copy of it. */
export async function createGate(edge: Edge, cloud: Cloud, name: string): Promise<string> {
  const res = await edge.admin.post(`/api/yard/${edge.yardId}/gate`, {
    name,
    direction: 'both',
    relay: { driver: 'simulated', channel: 1 },
  });
  if (res.status !== 201) throw new Error(`gate at the edge: ${res.status} ${res.text}`);
  copyRow(edge.app, cloud.app, 'gate', res.body.id);
  return res.body.id;
}

/** Whether the broker holds a live connection of this client id (Aedes' `clients` map is untyped). */
export function brokerHasClient(broker: EmbeddedBroker, clientId: string): boolean {
  return (broker.aedes as unknown as { clients: Record<string, unknown> }).clients[clientId] !== undefined;
}

/** Copies one row as stored (every column but generated ones) from one app's database to another's. */
export function copyRow(from: TestApp, to: TestApp, table: string, id: string): void {
  const columns = (rows(from.db, `PRAGMA table_xinfo(${table})`) as Array<{ name: string; hidden: number }>)
    .filter((c) => c.hidden === 0)
    .map((c) => c.name);
  const row = from.db.sqlite.prepare(`SELECT ${columns.join(', ')} FROM ${table} WHERE id = ?`).get(id);
  if (!row) throw new Error(`no ${table} ${id} to copy`);
  to.db.sqlite
    .prepare(
      `INSERT OR REPLACE INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
    )
    .run(row);
}
