import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { Aedes } from 'aedes';
import type { Config } from '../shared/config.js';
import type { Kdb } from '../shared/db/database.js';
import type { Logger } from '../shared/log.js';
import { SiteRepo } from '../shared/modules/sync/sites.js';
import { MAX_PACKET_BYTES } from '../shared/sync/protocol.js';
import { type BrokerAuth, CloudBrokerAuth } from './broker-auth.js';
import { limitPacketSize, type PacketLimits } from './broker-limits.js';

/** PEM files for a TLS listener (config mqtt.certFile / keyFile / caFile). */
export interface BrokerTls {
  certFile: string;
  keyFile: string;
  /** Extra CA certificates sent with the chain (an intermediate). */
  caFile?: string | undefined;
}

/**
 * Limits for clients that have not logged in yet, so a few sockets cannot exhaust the broker:
 * a CONNECT (client id, username, password, the status will) is a few hundred bytes; every later
 * packet may be up to MAX_PACKET_BYTES. A client that has not sent its CONNECT within the connect
 * timeout is dropped (mqtt.js gives up on its own CONNACK after 10 s too).
 */
const DEFAULT_LIMITS: PacketLimits = { firstBytes: 64 * 1024, maxBytes: MAX_PACKET_BYTES };
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export interface EmbeddedBroker {
  port: number;
  /** mqtt://127.0.0.1:port, or mqtts:// with TLS. */
  url: string;
  aedes: Aedes;
  stop(): Promise<void>;
}

/**
 * An in-process MQTT broker (Aedes, MQTT 3.1.1) for a cloud with no external broker, and for tests.
 * Without `auth` every client may do anything (tests only).
 * A refused subscription gets a failure return code (0x80) and the client stays connected, as with
 * Mosquitto; a refused publish makes Aedes drop the client, where Mosquitto acks and discards it.
 * Either way nothing is delivered.
 */
export async function startEmbeddedBroker(options: {
  port: number;
  host?: string;
  auth?: BrokerAuth | undefined;
  tls?: BrokerTls | undefined;
  log?: Logger | undefined;
  /** Default: 64 KiB for the CONNECT, MAX_PACKET_BYTES after it. */
  packetLimits?: PacketLimits;
  /** Default 10 s. */
  connectTimeoutMs?: number;
}): Promise<EmbeddedBroker> {
  const aedes = await Aedes.createBroker({
    connectTimeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
  });
  if (options.auth) installAuth(aedes, options.auth, options.log);
  const limits = options.packetLimits ?? DEFAULT_LIMITS;
  const handle = (socket: Socket) => {
    aedes.handle(socket);
    limitPacketSize(socket, limits, (declared) =>
      options.log?.warn(
        { remote: socket.remoteAddress, declaredBytes: declared, limits },
        'mqtt packet over the size limit; connection closed',
      ),
    );
  };
  const server = createListener(handle, options.tls);
  const sockets = new Set<Socket>();
  // 'connection' gives the raw socket for TLS too, so stop() can cut every client.
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => options.log?.error({ err }, 'mqtt listener error'));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: `${options.tls ? 'mqtts' : 'mqtt'}://127.0.0.1:${port}`,
    aedes,
    async stop() {
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function createListener(handle: (socket: Socket) => void, tls: BrokerTls | undefined): Server {
  if (!tls) return createServer(handle);
  const server = createTlsServer(
    {
      cert: readFileSync(tls.certFile),
      key: readFileSync(tls.keyFile),
      ...(tls.caFile ? { ca: readFileSync(tls.caFile) } : {}),
      minVersion: 'TLSv1.2',
    },
    handle,
  );
  // A client that fails the handshake (wrong CA, plain MQTT on the TLS port) is just dropped.
  server.on('tlsClientError', (_err, socket) => socket.destroy());
  return server;
}

type AuthedClient = { yardUser?: string } | null;

function installAuth(aedes: Aedes, auth: BrokerAuth, log: Logger | undefined): void {
  aedes.authenticate = (client, username, password, done) => {
    Promise.resolve(auth.authenticate(username, password?.toString('utf8'), client.id))
      .then((ok) => {
        if (ok) {
          (client as unknown as { yardUser: string }).yardUser = username ?? '';
          return done(null, true);
        }
        log?.warn({ username }, 'mqtt login refused');
        // 4: bad user name or password (MQTT 3.1.1 CONNACK).
        const err = Object.assign(new Error('bad username or password'), { returnCode: 4 });
        done(err as never, false);
      })
      .catch((err: Error) => {
        log?.error({ err, username }, 'mqtt login check failed');
        const refusal = Object.assign(new Error('server unavailable'), { returnCode: 3 });
        done(refusal as never, false);
      });
  };
  aedes.authorizePublish = (client, packet, done) => {
    const user = (client as unknown as AuthedClient)?.yardUser;
    if (user !== undefined && auth.authorize(user, packet.topic, 'publish')) return done(null);
    log?.warn({ user, topic: packet.topic }, 'mqtt publish refused');
    done(new Error('not authorized'));
  };
  aedes.authorizeSubscribe = (client, sub, done) => {
    const user = (client as unknown as AuthedClient)?.yardUser;
    if (user !== undefined && auth.authorize(user, sub.topic, 'subscribe')) return done(null, sub);
    log?.warn({ user, topic: sub.topic }, 'mqtt subscribe refused');
    // null: SUBACK failure (0x80) for this filter, the client stays connected.
    done(null, null);
  };
}

export interface CloudBroker extends EmbeddedBroker {
  /** How the cloud's own sync client logs in to this broker. */
  cloudClient: { url: string; username: string; password: string };
}

/**
 * The cloud's embedded broker (config without mqtt.url): listens on mqtt.host:mqtt.port, TLS when
 * mqtt.certFile and mqtt.keyFile are set, sites checked against the `site` table, the cloud user
 * against mqtt.username/password. Without a configured cloud password a random one is made for this
 * process (only the in-process cloud client needs it).
 */
export async function startCloudBroker(options: {
  config: Config;
  kysely: Kdb;
  log?: Logger | undefined;
  /** Overrides config.mqtt.port (tests: 0). */
  port?: number;
}): Promise<CloudBroker> {
  const { mqtt } = options.config;
  const username = mqtt.username ?? 'cloud';
  const password = mqtt.password ?? randomBytes(24).toString('base64url');
  const sites = new SiteRepo(options.kysely, { reservedIds: [username] });
  const auth = new CloudBrokerAuth({ sites, cloudUsername: username, cloudPassword: password });
  const tls =
    mqtt.certFile && mqtt.keyFile
      ? { certFile: mqtt.certFile, keyFile: mqtt.keyFile, caFile: mqtt.caFile }
      : undefined;
  const broker = await startEmbeddedBroker({
    port: options.port ?? mqtt.port,
    host: mqtt.host,
    auth,
    tls,
    log: options.log,
  });
  options.log?.info({ port: broker.port, tls: Boolean(tls) }, 'embedded mqtt broker listening');
  return { ...broker, cloudClient: { url: broker.url, username, password } };
}
