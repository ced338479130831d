import { readFileSync } from 'node:fs';
import mqtt, { type MqttClient } from 'mqtt';

/**
 * Child process of test/bench/sync-catchup.ts: the raw mqtt.js baseline, with the same client options
 * the sync transport uses (MQTT 3.1.1, clean: false, QoS 1).
 *  - RAW_MODE=sub: subscribes to RAW_TOPIC; after {expect: n} reports {done: {at, count, bytes}} when
 *    the n-th message arrived.
 *  - RAW_MODE=pub: on {go: file} publishes every payload of the file (uint32 length + bytes, repeated)
 *    to RAW_TOPIC with QoS 1, at most RAW_WINDOW unacknowledged at a time (the PUBACK frees a slot),
 *    and reports {published: {startedAt, endedAt, count, bytes}}.
 * Times are epoch milliseconds with sub-millisecond precision (performance.timeOrigin + now()), so the
 * parent can subtract one process's time from another's.
 */
const mode = process.env.RAW_MODE;
const topic = process.env.RAW_TOPIC ?? 'yards/raw/up/changes';
const url = process.env.RAW_URL ?? 'mqtt://127.0.0.1:1883';
const window = Number(process.env.RAW_WINDOW ?? 8);

const now = () => performance.timeOrigin + performance.now();
const send = (message: object) => process.send?.(message);

function connect(clientId: string): Promise<MqttClient> {
  const client = mqtt.connect(url, {
    clientId,
    clean: false,
    protocolVersion: 4,
    keepalive: 30,
    reconnectPeriod: 1_000,
  });
  return new Promise((resolve, reject) => {
    client.once('connect', () => resolve(client));
    client.once('error', reject);
  });
}

function readPayloads(file: string): Buffer[] {
  const all = readFileSync(file);
  const out: Buffer[] = [];
  for (let at = 0; at < all.length; ) {
    const length = all.readUInt32BE(at);
    out.push(all.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return out;
}

async function subscriber(): Promise<void> {
  const client = await connect(`bench-raw-sub-${process.pid}`);
  await client.subscribeAsync(topic, { qos: 1 });
  let expect = Number.POSITIVE_INFINITY;
  let count = 0;
  let bytes = 0;
  client.on('message', (_topic, payload) => {
    count++;
    bytes += payload.length;
    if (count === expect) send({ done: { at: now(), count, bytes } });
  });
  process.on('message', (msg: { expect?: number; cmd?: string }) => {
    if (msg.expect !== undefined) expect = msg.expect;
    if (msg.cmd === 'exit') void client.endAsync().then(() => process.exit(0));
  });
  send({ ready: true });
}

async function publisher(): Promise<void> {
  const client = await connect(`bench-raw-pub-${process.pid}`);
  process.on('message', async (msg: { go?: string; cmd?: string }) => {
    if (msg.cmd === 'exit') {
      await client.endAsync();
      process.exit(0);
    }
    if (!msg.go) return;
    const payloads = readPayloads(msg.go);
    const startedAt = now();
    let next = 0;
    let bytes = 0;
    // `window` workers, each publishing its next payload when the previous one was acknowledged.
    const worker = async () => {
      while (next < payloads.length) {
        const payload = payloads[next++]!;
        bytes += payload.length;
        await client.publishAsync(topic, payload, { qos: 1 });
      }
    };
    await Promise.all(Array.from({ length: window }, worker));
    send({ published: { startedAt, endedAt: now(), count: payloads.length, bytes } });
  });
  send({ ready: true });
}

if (mode === 'sub') await subscriber();
else if (mode === 'pub') await publisher();
else throw new Error(`RAW_MODE must be sub or pub, not ${mode}`);
