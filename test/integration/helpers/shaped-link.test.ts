import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/ports.js';
import { type ShapedLink, shapedLink } from '../../helpers/shaped-link.js';

/**
 * The link shaper of the sync benchmarks (test/helpers/shaped-link.ts). Only "is it shaped at all":
 * lower bounds, which load on the machine cannot break (load only slows things down) and which fail
 * when a link is not shaped or faster than asked (bits taken for bytes); upper bounds only loose
 * ones, against a link that stalls, not to time anything.
 */
const servers: Server[] = [];
const accepted: Socket[] = [];
const links: ShapedLink[] = [];

afterEach(async () => {
  for (const link of links.splice(0)) await link.close();
  for (const socket of accepted.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function target(onConnection: (socket: Socket) => void): Promise<number> {
  const port = await freePort();
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    accepted.push(socket);
    onConnection(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return port;
}

async function link(options: Omit<Parameters<typeof shapedLink>[0], 'target'>, port: number) {
  const l = await shapedLink({ target: { port }, ...options });
  links.push(l);
  return l;
}

async function dial(port: number): Promise<Socket> {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

/** Everything the socket receives until the other side closes its end. */
function readAll(socket: Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve, reject) => {
    socket.once('end', () => resolve(Buffer.concat(chunks)));
    socket.once('error', reject);
  });
}

/** Resolves when `total` bytes have arrived on the socket. */
function received(socket: Socket, total: number): Promise<number> {
  let got = 0;
  return new Promise((resolve) => {
    socket.on('data', (c: Buffer) => {
      got += c.length;
      if (got >= total) resolve(performance.now());
    });
  });
}

describe('shapedLink', () => {
  it('delivers every byte intact and in order both ways, passes the close on, and counts the bytes', async () => {
    // An echo server that closes its side once the client has closed its own.
    const port = await target((socket) => socket.pipe(socket));
    const l = await link({ upBitsPerSecond: 20e6, downBitsPerSecond: 20e6, latencyMs: 10 }, port);
    const sent = randomBytes(256 * 1024);
    const client = await dial(l.port);
    const echoed = readAll(client);
    // Writes of uneven sizes, so pieces are split and joined at odd places on the way.
    for (let at = 0, size = 1; at < sent.length; at += size, size = (size * 7) % 9_973) {
      client.write(sent.subarray(at, at + size));
    }
    client.end();

    expect((await echoed).equals(sent)).toBe(true);
    expect(l.bytes).toEqual({ up: sent.length, down: sent.length });
    expect(l.connections).toBe(1);
  });

  it('limits the bandwidth from the client (256 kbit/s: 16 KiB takes about half a second)', async () => {
    const size = 16 * 1024;
    const port = await target((socket) => {
      received(socket, size).then(() => socket.write('k'));
    });
    const l = await link({ upBitsPerSecond: 256_000 }, port);
    const client = await dial(l.port);
    const acked = received(client, 1);
    const started = performance.now();
    client.write(randomBytes(size));
    const seconds = ((await acked) - started) / 1000;

    // 16,384 bytes at 32,000 bytes/s, less the bucket's first 1,500 bytes: 0.47 s at best.
    expect(seconds).toBeGreaterThanOrEqual(0.4);
    expect(seconds).toBeLessThan(5);
    expect(l.bytes.up).toBe(size);
  });

  it("holds the benchmarks' rate: 512 KiB at 10 Mbit/s takes about 0.4 s, not much more", async () => {
    const size = 512 * 1024;
    const port = await target((socket) => {
      received(socket, size).then(() => socket.write('k'));
    });
    const l = await link({ upBitsPerSecond: 10e6, downBitsPerSecond: 10e6 }, port);
    const client = await dial(l.port);
    const acked = received(client, 1);
    const started = performance.now();
    client.write(randomBytes(size));
    const seconds = ((await acked) - started) / 1000;

    // 524,288 bytes at 1,250,000 bytes/s, less the bucket's first 16 KiB: 0.41 s at best.
    expect(seconds).toBeGreaterThanOrEqual(0.38);
    expect(seconds).toBeLessThan(3);
  });

  it('limits the bandwidth towards the client on its own (256 kbit/s down, unlimited up)', async () => {
    const size = 16 * 1024;
    const port = await target((socket) => {
      socket.once('data', () => socket.write(randomBytes(size)));
    });
    const l = await link({ downBitsPerSecond: 256_000 }, port);
    const client = await dial(l.port);
    const arrived = received(client, size);
    const started = performance.now();
    client.write('go');
    const seconds = ((await arrived) - started) / 1000;

    expect(seconds).toBeGreaterThanOrEqual(0.4);
    expect(seconds).toBeLessThan(5);
    expect(l.bytes).toEqual({ up: 2, down: size });
  });

  it('adds its latency each way: three round trips over 100 ms one-way take at least 600 ms', async () => {
    const port = await target((socket) => socket.on('data', (c) => socket.write(c)));
    const l = await link({ latencyMs: 100 }, port);
    const client = await dial(l.port);
    const started = performance.now();
    for (let trip = 0; trip < 3; trip++) {
      const back = received(client, 1);
      client.write('p');
      await back;
      client.removeAllListeners('data');
    }
    expect(performance.now() - started).toBeGreaterThanOrEqual(600);
  });

  it('drops its open connections when closed', async () => {
    const port = await target(() => undefined);
    const l = await link({}, port);
    const client = await dial(l.port);
    const ended = new Promise((resolve) => client.once('end', () => resolve('ended')));
    await l.close();
    links.splice(links.indexOf(l), 1);
    expect(await ended).toBe('ended');
    await expect(dial(l.port)).rejects.toThrow(/ECONNREFUSED/);
  });
});
