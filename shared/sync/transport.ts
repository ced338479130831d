import { readFileSync } from 'node:fs';
import type { IClientOptions, ISubscriptionMap, MqttClient } from 'mqtt';
import type { Config } from '../config.js';
import { lazyModule } from '../lazy-module.js';
import type { Logger } from '../log.js';

/** mqtt.js, loaded when a link starts (shared/lazy-module.ts): a standalone edge has none. */
const loadMqtt = lazyModule(async () => (await import('mqtt')).default);

/** What a receiver may need to know about a message besides its topic and payload. */
export interface MessageMeta {
  /** Delivered from the broker's retained store (on subscribing), not as it was published. */
  retain: boolean;
}

export type MessageListener = (topic: string, payload: Buffer, meta?: MessageMeta) => void;

/**
 * The MQTT link as the sync engine sees it. Only a transport: delivery may duplicate, reorder or drop
 * messages, and the engine's change logs, acks and resends make up for all of it (docs/sync.md "Principles").
 */
export interface SyncTransport {
  /** Starts connecting (and reconnecting forever). Resolves at once: being offline is normal. */
  start(): Promise<void>;
  stop(): Promise<void>;
  readonly connected: boolean;
  /** Rejects when not connected; the engine resends from its log after reconnecting. */
  publish(topic: string, payload: string | Buffer, options: { qos: 0 | 1; retain?: boolean }): Promise<void>;
  onMessage(listener: MessageListener): void;
  onConnect(listener: () => void): void;
  onDisconnect(listener: () => void): void;
}

/**
 * Publishes each message as JSON on `topic` with QoS 1 (a link's acks of its peer's batches): the
 * receiver publishes its ack itself instead of calling back into the link that handed it the batch.
 */
export function jsonPublisher<M>(transport: SyncTransport, topic: string): (message: M) => Promise<void> {
  return (message) => transport.publish(topic, JSON.stringify(message), { qos: 1 });
}

export interface MqttTransportOptions {
  url: string;
  clientId: string;
  username?: string | undefined;
  password?: string | undefined;
  caFile?: string | undefined;
  certFile?: string | undefined;
  keyFile?: string | undefined;
  rejectUnauthorized?: boolean;
  keepaliveSec?: number;
  /** Subscribed on every connect (QoS 1). */
  subscriptions: string[];
  /** Last will, published by the broker when this client vanishes (retained). */
  will?: { topic: string; payload: string } | undefined;
  /** Milliseconds between reconnect attempts. */
  reconnectMs?: number;
  log: Logger;
}

/**
 * mqtt.js with a persistent session (clean: false, QoS 1), MQTT 3.1.1 so that both Aedes and
 * Mosquitto speak it. Nothing is trusted to mqtt.js's in-memory store: publish refuses while offline.
 */
export class MqttTransport implements SyncTransport {
  private client: MqttClient | undefined;
  private readonly messageListeners: MessageListener[] = [];
  private readonly connectListeners: Array<() => void> = [];
  private readonly disconnectListeners: Array<() => void> = [];
  private wasConnected = false;

  constructor(private readonly options: MqttTransportOptions) {}

  get connected(): boolean {
    return this.client?.connected === true;
  }

  async start(): Promise<void> {
    const o = this.options;
    const clientOptions: IClientOptions = {
      clientId: o.clientId,
      clean: false,
      protocolVersion: 4,
      keepalive: o.keepaliveSec ?? 30,
      reconnectPeriod: o.reconnectMs ?? 1_000,
      connectTimeout: 10_000,
      username: o.username,
      password: o.password,
      rejectUnauthorized: o.rejectUnauthorized ?? true,
      // Our log is the queue: do not let mqtt.js pile up QoS 0 messages while offline.
      queueQoSZero: false,
      resubscribe: true,
      // A refused CONNECT (broker restarting, password file not reloaded yet, auth backend down)
      // must not end the retries: mqtt.js stops reconnecting after one unless told otherwise.
      reconnectOnConnackError: true,
      ...(o.caFile ? { ca: readFileSync(o.caFile) } : {}),
      ...(o.certFile ? { cert: readFileSync(o.certFile) } : {}),
      ...(o.keyFile ? { key: readFileSync(o.keyFile) } : {}),
      ...(o.will
        ? { will: { topic: o.will.topic, payload: Buffer.from(o.will.payload), qos: 1, retain: true } }
        : {}),
    };
    const mqtt = await loadMqtt();
    const client = mqtt.connect(o.url, clientOptions);
    this.client = client;
    client.on('connect', (connack) => {
      this.wasConnected = true;
      o.log.info({ url: redactUrl(o.url), sessionPresent: connack.sessionPresent }, 'mqtt connected');
      // Subscribe on every connect: a broker that lost our session (restart without persistence)
      // does not remember the subscriptions, and Mosquitto 2.0 restores a persistent session
      // without its shared subscriptions (`$share/...`: the cloud nodes' change batches) while
      // saying the session is present. `resubscribe` makes mqtt.js send the SUBSCRIBE even then
      // (it skips topics it believes the session holds); a subscription made again only brings the
      // retained messages again (the sites' statuses), which are taken as they are at start.
      client.subscribe(
        Object.assign(Object.fromEntries(o.subscriptions.map((topic) => [topic, { qos: 1 as const }])), {
          resubscribe: true,
        }) as ISubscriptionMap,
        (err) => {
          if (err) o.log.warn({ err: err.message }, 'mqtt subscribe failed');
          for (const l of this.connectListeners) l();
        },
      );
    });
    client.on('close', () => {
      if (!this.wasConnected) return;
      this.wasConnected = false;
      o.log.warn({ url: redactUrl(o.url) }, 'mqtt link down; retrying');
      for (const l of this.disconnectListeners) l();
    });
    client.on('error', (err) => o.log.warn({ err: err.message }, 'mqtt error'));
    client.on('message', (topic, payload, packet) => {
      const meta: MessageMeta = { retain: packet.retain === true };
      for (const l of this.messageListeners) l(topic, payload, meta);
    });
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await client.endAsync(true);
  }

  async publish(
    topic: string,
    payload: string | Buffer,
    options: { qos: 0 | 1; retain?: boolean },
  ): Promise<void> {
    const client = this.client;
    if (!client?.connected) throw new Error('mqtt not connected');
    await client.publishAsync(topic, payload, { qos: options.qos, retain: options.retain ?? false });
  }

  onMessage(listener: MessageListener): void {
    this.messageListeners.push(listener);
  }
  onConnect(listener: () => void): void {
    this.connectListeners.push(listener);
  }
  onDisconnect(listener: () => void): void {
    this.disconnectListeners.push(listener);
  }
}

function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/**
 * One side's MQTT client: what differs between an edge and the cloud (url, client id, user name,
 * topics, will) is given; the broker settings of config.mqtt (password, TLS files, keepalive) are
 * the same for both.
 */
export function mqttTransportFrom(
  mqtt: Config['mqtt'],
  side: Pick<MqttTransportOptions, 'url' | 'clientId' | 'username' | 'subscriptions' | 'will' | 'log'>,
): MqttTransport {
  return new MqttTransport({
    ...side,
    password: mqtt.password,
    caFile: mqtt.caFile,
    certFile: mqtt.certFile,
    keyFile: mqtt.keyFile,
    rejectUnauthorized: mqtt.rejectUnauthorized,
    keepaliveSec: mqtt.keepaliveSec,
  });
}

/** A sync factory's `transport` option: a transport, or a function that builds one from the deps. */
/** A transport, or a function of the deps that makes one (undefined: the side's default). */
export type TransportOption<D> = SyncTransport | ((deps: D) => SyncTransport | undefined);

/** The transport an option names, else the side's default. */
export function transportOf<D>(
  option: TransportOption<D> | undefined,
  deps: D,
  fallback: () => SyncTransport,
): SyncTransport {
  return (typeof option === 'function' ? option(deps) : option) ?? fallback();
}
