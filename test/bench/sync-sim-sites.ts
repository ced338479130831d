import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import mqtt, { type MqttClient } from 'mqtt';
import { AckWait } from '../../shared/sync/ack-wait.js';
import type { OutboxBatch } from '../../shared/sync/outbox.js';
import { Ack, decode, topicsFor } from '../../shared/sync/protocol.js';
import { Outbox, StreamId } from '../helpers/send-sync.js';

/**
 * Child process of test/bench/sync-ingest.ts: many light-weight simulated edges in one process.
 *
 * Each site has its own change log (an in-memory SQLite change_log like an edge's) holding a copy of
 * a real edge's offline work (exported by sync-node.ts `exportLog`), made the site's own: master data
 * ids mapped to the site's (yard, spots, drivers made at the cloud), every other UUID mapped by a
 * per-site bijection, the template's site id (HLC origins) replaced. Batches are read from that log
 * by the real Outbox (so the wire format is the edge's) and published with mqtt.js (QoS 1, clean:
 * false, MQTT 3.1.1; as user {site} with SIM_PASSWORD when set) on yards/{site}/up/changes, at most SIM_WINDOW (8) unacknowledged per site; the
 * cloud's acks on yards/{site}/down/ack free the window; no ack for SIM_ACK_TIMEOUT_MS resends from
 * the acknowledged position, as an edge does (and waits twice as long for the next ack, up to 8x,
 * until one comes: shared/sync/ack-wait.ts).
 *
 * IPC: after {ready}, {go: true} starts every site at once; {done: {startedAt, endedAt, rows, bytes,
 * batches, resent}} when every site's last row was acknowledged. Times: epoch ms (sub-ms precision).
 */
interface SiteSpec {
  siteId: string;
  /** Template id -> this site's id, for the master data the cloud made for the site. */
  ids: Record<string, string>;
  /** Index of the site: the UUID bijection (0 leaves ids unchanged). */
  index: number;
}
type TemplateRow = [entity: string, entityId: string, op: string, hlc: string, schemaV: number, data: string];

const url = process.env.SIM_URL ?? 'mqtt://127.0.0.1:1883';
/** Every site's MQTT password (username: its site id), for a broker with a password file (Mosquitto). */
const password = process.env.SIM_PASSWORD;
const window = Number(process.env.SIM_WINDOW ?? 8);
const ackTimeoutMs = Number(process.env.SIM_ACK_TIMEOUT_MS ?? 10_000);
const templateSite = process.env.SIM_TEMPLATE_SITE ?? '';
const rows = JSON.parse(readFileSync(process.env.SIM_ROWS_FILE ?? '', 'utf8')) as TemplateRow[];
const specs = JSON.parse(readFileSync(process.env.SIM_SITES_FILE ?? '', 'utf8')) as SiteSpec[];
/** Ids every site shares (the organisation's users). */
const keep = new Set((process.env.SIM_KEEP_IDS ?? '').split(',').filter(Boolean));
const now = () => performance.timeOrigin + performance.now();
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** A bijection on UUIDs per site: the last 12 hex digits XOR a site mask (same length, same version). */
function mapper(spec: SiteSpec): (text: string) => string {
  const mask = (BigInt(spec.index) * 0x9e3779b97f4an) & 0xffffffffffffn;
  const map = (id: string) => {
    const explicit = spec.ids[id];
    if (explicit) return explicit;
    if (keep.has(id) || mask === 0n) return id;
    const tail = (BigInt(`0x${id.slice(24)}`) ^ mask).toString(16).padStart(12, '0');
    return `${id.slice(0, 24)}${tail}`;
  };
  return (text) => text.replace(UUID, map).replaceAll(templateSite, spec.siteId);
}

/** The site's own change log, filled with its copy of the template rows (seqs from 1). */
function siteLog(spec: SiteSpec): { outbox: Outbox; last: number } {
  const sqlite = new Database(':memory:');
  sqlite.exec(`
    CREATE TABLE change_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, peer TEXT NOT NULL, entity TEXT NOT NULL,
      entity_id TEXT NOT NULL, op TEXT NOT NULL, hlc TEXT NOT NULL, origin TEXT NOT NULL, schema_v INTEGER NOT NULL,
      data TEXT NOT NULL);
    CREATE INDEX change_log_peer_seq ON change_log (peer, seq);
    CREATE TABLE sync_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);`);
  sqlite.prepare("INSERT INTO sync_meta VALUES ('stream', ?)").run(randomBytes(16).toString('hex'));
  const map = mapper(spec);
  const insert = sqlite.prepare('INSERT INTO change_log VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?)');
  sqlite.transaction(() => {
    for (const [entity, entityId, op, hlc, schemaV, data] of rows) {
      insert.run('cloud', entity, map(entityId), op, map(hlc), spec.siteId, schemaV, map(data));
    }
  })();
  const outbox = new Outbox(sqlite, { batchRows: 500, batchBytes: 262_144 }, new StreamId(sqlite));
  return { outbox, last: rows.length };
}

interface Totals {
  rows: number;
  bytes: number;
  batches: number;
  resent: number;
}

/** One simulated edge's sender: window, acks, resend on silence. Resolves when all is acknowledged. */
async function runSite(
  spec: SiteSpec,
  { outbox, last }: ReturnType<typeof siteLog>,
  client: MqttClient,
  totals: Totals,
): Promise<void> {
  const topics = topicsFor(spec.siteId);
  let acked = 0;
  let nextFrom = 1;
  let inFlight: OutboxBatch[] = [];
  let lastProgress = now();
  const wait = new AckWait(() => ackTimeoutMs); // as the edge's sender backs off (link-sender.ts)
  await new Promise<void>((resolve) => {
    const fill = () => {
      while (inFlight.length < window && nextFrom <= last) {
        const batch = outbox.read('cloud', spec.siteId, nextFrom);
        if (!batch) break;
        inFlight.push(batch);
        nextFrom = batch.to + 1;
        totals.bytes += batch.json.length;
        totals.batches += 1;
        client.publish(topics.upChanges, batch.json, { qos: 1 });
      }
    };
    client.on('message', (topic, payload) => {
      if (topic !== topics.downAck) return;
      const ack = decode(Ack, payload);
      if (!ack || ack.upTo <= acked) return;
      totals.rows += ack.upTo - acked;
      acked = ack.upTo;
      lastProgress = now();
      wait.progressed();
      inFlight = inFlight.filter((b) => b.to > acked);
      if (acked >= last) {
        clearInterval(watchdog);
        resolve();
        return;
      }
      fill();
    });
    const watchdog = setInterval(() => {
      if (now() - lastProgress < wait.ms) return;
      wait.timedOut();
      totals.resent += inFlight.length;
      inFlight = [];
      nextFrom = acked + 1;
      lastProgress = now();
      fill();
    }, 500);
    fill();
  });
}

async function connect(siteId: string): Promise<MqttClient> {
  const client = mqtt.connect(url, {
    clientId: `sim-${siteId}`,
    ...(password ? { username: siteId, password } : {}),
    clean: false,
    protocolVersion: 4,
    keepalive: 30,
    reconnectPeriod: 1_000,
  });
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  await client.subscribeAsync(topicsFor(siteId).downAck, { qos: 1 });
  return client;
}

// Logs first (not timed), then the connections.
const logs = specs.map(siteLog);
const clients = await Promise.all(specs.map((s) => connect(s.siteId)));
process.on('message', async (msg: { go?: boolean; cmd?: string }) => {
  if (msg.cmd === 'exit') {
    await Promise.all(clients.map((c) => c.endAsync()));
    process.exit(0);
  }
  if (!msg.go) return;
  const totals: Totals = { rows: 0, bytes: 0, batches: 0, resent: 0 };
  const startedAt = now();
  await Promise.all(specs.map((spec, i) => runSite(spec, logs[i]!, clients[i]!, totals)));
  process.send?.({ done: { startedAt, endedAt: now(), ...totals } });
});
process.send?.({ ready: true, sites: specs.length, rowsPerSite: rows.length });
