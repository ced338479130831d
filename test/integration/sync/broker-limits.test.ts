import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CloudBroker, startCloudBroker, startEmbeddedBroker } from '../../../cloud/broker.js';
import { provisionSite } from '../../../cloud/provision-site.js';
import { type Config, loadConfig } from '../../../shared/config.js';
import { type AppDatabase, openDatabase } from '../../../shared/db/database.js';
import { MAX_PACKET_BYTES } from '../../../shared/sync/protocol.js';
import { connectOnce } from '../../helpers/mqtt-client.js';

/**
 * The embedded broker cannot be exhausted before login: a packet that declares more than its limit
 * (64 KiB for the CONNECT, MAX_PACKET_BYTES after it) closes the connection at its header, before
 * the body is buffered, and a client that never sends its CONNECT is dropped.
 */
const CLOUD_PASSWORD = 'cloud-secret-for-tests';

let dir: string;
let config: Config;
let db: AppDatabase;
let broker: CloudBroker;
const clients: MqttClient[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'broker-limits-'));
  config = loadConfig(
    {},
    { role: 'cloud', dataDir: join(dir, 'data'), mqtt: { password: CLOUD_PASSWORD, host: '127.0.0.1' } },
  );
  db = openDatabase(join(dir, 'data', 'yard.db'));
  await provisionSite(db.kysely, config, { siteId: 'site-a', outDir: join(dir, 'out') });
  broker = await startCloudBroker({ config, kysely: db.kysely, port: 0 });
});

afterAll(async () => {
  for (const client of clients) client.end(true);
  await broker?.stop();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

function connect(username: string, password: string): Promise<MqttClient> {
  const { client, connected } = connectOnce(
    broker.url,
    username,
    password,
    `edge-${username}:${clients.length}`,
  );
  clients.push(client);
  return connected;
}

const sitePassword = () =>
  JSON.parse(readFileSync(join(dir, 'out', 'site-a.edge.json'), 'utf8')).mqtt.password as string;

/** MQTT's remaining-length encoding (1-4 bytes of 7 bits). */
function remainingLength(n: number): Buffer {
  const bytes: number[] = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    bytes.push(byte);
  } while (n > 0);
  return Buffer.from(bytes);
}

/**
 * A raw TCP client that sends a packet header declaring `declared` bytes and then streams body bytes
 * (respecting backpressure) until the broker closes the connection or `sendUpTo` bytes are out.
 */
async function streamOversizePacket(
  port: number,
  typeByte: number,
  declared: number,
  sendUpTo: number,
): Promise<{ closed: boolean; sent: number }> {
  const socket = tcpConnect({ port, host: '127.0.0.1' });
  socket.on('error', () => {});
  let closed = false;
  socket.once('close', () => {
    closed = true;
  });
  await new Promise<void>((r) => socket.once('connect', () => r()));
  const chunk = Buffer.alloc(64 * 1024, 0x41);
  let sent = 0;
  socket.write(Buffer.concat([Buffer.from([typeByte]), remainingLength(declared)]));
  while (!closed && sent < sendUpTo) {
    sent += chunk.length;
    if (!socket.write(chunk)) {
      await new Promise<void>((r) => {
        const done = () => {
          socket.off('drain', done);
          socket.off('close', done);
          r();
        };
        socket.once('drain', done);
        socket.once('close', done);
      });
    }
  }
  // Give the broker a moment to close a connection it refused at the very end.
  const deadline = Date.now() + 2_000;
  while (!closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  socket.destroy();
  return { closed, sent };
}

describe('embedded broker packet limits', () => {
  it('closes a connection whose CONNECT declares a huge length, before buffering it', async () => {
    const result = await streamOversizePacket(broker.port, 0x10, 200 * 1024 * 1024, 2 * MAX_PACKET_BYTES);
    expect(result.closed).toBe(true);
    // The broker refused at the header: far less than the cap got through (kernel buffers aside).
    expect(result.sent).toBeLessThan(MAX_PACKET_BYTES);
  });

  it('refuses a CONNECT over 64 KiB, a size no real login needs', async () => {
    // Half of the declared body is sent: only the header can have made the broker close.
    const result = await streamOversizePacket(broker.port, 0x10, 1024 * 1024, 512 * 1024);
    expect(result.closed).toBe(true);
  });

  it('drops a logged-in client that publishes more than MAX_PACKET_BYTES; a snapshot-sized one passes', async () => {
    const cloud = await connect('cloud', CLOUD_PASSWORD);
    const got: number[] = [];
    cloud.on('message', (_topic, payload) => got.push(payload.length));
    await cloud.subscribeAsync('yards/site-a/up/#', { qos: 1 });

    const site = await connect('site-a', sitePassword());
    // The largest legitimate message: a 10 MiB picture as base64 in a command result.
    const snapshotSized = Math.ceil((10 * 1024 * 1024 * 4) / 3) + 1024;
    await site.publishAsync('yards/site-a/up/cmd-result', Buffer.alloc(snapshotSized, 0x41), { qos: 1 });
    const deadline = Date.now() + 10_000;
    while (got.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(got).toEqual([snapshotSized]);

    const closed = new Promise<void>((r) => site.once('close', () => r()));
    site.publish('yards/site-a/up/cmd-result', Buffer.alloc(MAX_PACKET_BYTES, 0x41), { qos: 0 });
    await closed;
    expect(got).toEqual([snapshotSized]);

    // Other clients are not affected, and the site can log in again.
    const again = await connect('site-a', sitePassword());
    expect(again.connected).toBe(true);
    expect(cloud.connected).toBe(true);
  });

  it('drops a client that never sends its CONNECT', async () => {
    const quick = await startEmbeddedBroker({ port: 0, host: '127.0.0.1', connectTimeoutMs: 300 });
    try {
      const socket = tcpConnect({ port: quick.port, host: '127.0.0.1' });
      socket.on('error', () => {});
      const started = Date.now();
      await new Promise<void>((r) => socket.once('close', () => r()));
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await quick.stop();
    }
  });
});
