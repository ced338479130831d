import { z } from 'zod';

/**
 * The wire format of the sync protocol (docs/sync.md). Every message is JSON with `v: 1`. Messages that fail these schemas are
 * logged and dropped: a malformed message never touches the database.
 *
 * Sequence ranges: change_log.seq is one counter shared by every peer's log (the cloud keeps a log
 * per site in one table), so a peer's own rows are not contiguous. A batch therefore names the range
 * of seqs it covers, `from..to`, and holds every row of that peer in the range. The first batch after
 * an ack of `upTo` starts at `from = upTo + 1`; the next in flight starts at the previous `to + 1`.
 * A receiver whose applied position is `p` applies a batch when `from <= p + 1` (rows `<= p` are
 * duplicates) and treats `from > p + 1` as a gap.
 *
 * `stream` identifies the sender's change log (a random id made when its database was created). A
 * receiver that sees a new stream from a peer starts that peer's applied position again at 0: the peer
 * is a new appliance or a restored database, and its seqs started over.
 */

export const PROTOCOL_V = 1;

/**
 * The largest MQTT packet the brokers accept (the embedded one: cloud/broker.ts; Mosquitto:
 * `max_packet_size` in deploy/mosquitto/mosquitto.conf). The largest legitimate message is a
 * snapshot answer on up/cmd-result: a picture of at most 10 MiB (shared/cameras/http-image.ts) is
 * 13.4 MiB as base64. Change batches stay far below it (BATCH_LIMITS).
 */
export const MAX_PACKET_BYTES = 16 * 1024 * 1024;

/**
 * The most a change batch may hold: the largest sync.batchRows and sync.batchBytes a sender can be
 * configured with (config.ts). A sender puts at most that many rows and bytes in a batch, except
 * that one row larger than the byte limit travels alone; a receiver refuses anything bigger unread.
 */
export const BATCH_LIMITS = { rows: 500, bytes: 262_144 } as const;

export const topicsFor = (siteId: string) => ({
  upChanges: `yards/${siteId}/up/changes`,
  upAck: `yards/${siteId}/up/ack`,
  downChanges: `yards/${siteId}/down/changes`,
  downAck: `yards/${siteId}/down/ack`,
  downCmd: `yards/${siteId}/down/cmd`,
  upCmdResult: `yards/${siteId}/up/cmd-result`,
  status: `yards/${siteId}/status`,
});

/**
 * Where an edge answers a command: on the topic of the cloud node that sent it (`replyTo`, the
 * node waits for the answer with the HTTP request open), else on the site's one result topic
 * (a single-node cloud, or one older than per-node replies).
 */
export function commandResultTopic(siteId: string, replyTo: string | undefined): string {
  const topic = topicsFor(siteId).upCmdResult;
  return replyTo ? `${topic}/${replyTo}` : topic;
}

/** Whether a topic's rest (parseTopic) is a command result, on the site's topic or a node's. */
export function isCommandResult(rest: string): boolean {
  return rest === 'up/cmd-result' || rest.startsWith('up/cmd-result/');
}

/** Topics a one-node cloud subscribes to, for every site. */
export const CLOUD_SUBSCRIPTIONS = ['yards/+/up/#', 'yards/+/status'];

/** The MQTT group the cloud's nodes share the sites' change batches in. */
export const CLOUD_SHARE_GROUP = 'cloud';

/**
 * A cloud node's subscriptions. One node (SQLite, or the embedded broker) takes everything. Of
 * several nodes on one PostgreSQL (`shared`), each takes:
 * - the sites' change batches through the shared subscription: the broker gives each batch to one
 *   node of the group, which applies it (per-site order is kept in PostgreSQL);
 * - every site's status and acks: each node tracks every site's link and its sends;
 * - command results on its own topic, and on the sites' plain topic (edges older than per-node
 *   replies: every node hears them, the one with the call resolves it).
 */
export function cloudSubscriptions(nodeId: string, shared: boolean): string[] {
  if (!shared) return [...CLOUD_SUBSCRIPTIONS];
  return [
    `$share/${CLOUD_SHARE_GROUP}/yards/+/up/changes`,
    'yards/+/up/ack',
    'yards/+/up/cmd-result',
    `yards/+/up/cmd-result/${nodeId}`,
    'yards/+/status',
  ];
}

/** `yards/{siteId}/{rest}` -> {siteId, rest}, or undefined for anything else. */
export function parseTopic(topic: string): { siteId: string; rest: string } | undefined {
  const m = /^yards\/([A-Za-z0-9_-]{1,64})\/(.+)$/.exec(topic);
  return m ? { siteId: m[1]!, rest: m[2]! } : undefined;
}

export const WireRow = z.object({
  seq: z.number().int().positive(),
  entity: z.string().min(1),
  id: z.string().min(1),
  op: z.enum(['upsert', 'delete']),
  hlc: z.string().regex(/^\d{13}-[0-9a-f]{4}-.+$/),
  // A plain object; the applier checks every column against its table. (z.record walks every key,
  // which costs seconds on a week's backlog of 150,000 rows.)
  data: z.custom<Record<string, unknown>>(isPlainObject, 'an object'),
});
export type WireRow = z.infer<typeof WireRow>;

export const Batch = z.object({
  v: z.literal(PROTOCOL_V),
  site: z.string(),
  stream: z.string().min(1),
  from: z.number().int().positive(),
  to: z.number().int().positive(),
  /** The newest schema version among the rows; a receiver on an older schema keeps the batch pending. */
  schemaV: z.number().int().positive(),
  rows: z.array(WireRow),
});
export type Batch = z.infer<typeof Batch>;

export const Ack = z.object({
  v: z.literal(PROTOCOL_V),
  /** The stream being acknowledged (the sender's). An ack for another stream is ignored. */
  stream: z.string().min(1),
  upTo: z.number().int().min(0),
  /**
   * The batch encodings this receiver decodes (wire-encoding.ts), so the peer may compress what it
   * sends next. Optional: an older receiver leaves it out and gets plain JSON; an older sender
   * drops the field (zod drops unknown keys) and sends plain JSON, which every version reads.
   */
  accept: z.array(z.string().min(1).max(32)).max(8).optional(),
});
export type Ack = z.infer<typeof Ack>;

export const CommandKind = z.enum(['actuate', 'snapshot', 'resync']);
export type CommandKind = z.infer<typeof CommandKind>;

/**
 * A command may live at most this long (`deadline - sentAt`): the cloud gives it
 * sync.commandTimeoutMs (at most this, config.ts). A longer one is not the cloud's and is refused.
 */
export const MAX_COMMAND_LIFETIME_MS = 60_000;
/** The clock skew between cloud and edge that commands tolerate (docs/sync.md "Commands": 5 minutes). */
export const COMMAND_CLOCK_SKEW_MS = 5 * 60_000;

export const Command = z.object({
  v: z.literal(PROTOCOL_V),
  id: z.string().min(1),
  kind: CommandKind,
  args: z.record(z.string(), z.unknown()),
  /** Cloud epoch ms after which the command must not run (the cloud has already answered 504). */
  deadline: z.number().int(),
  /** Cloud epoch ms when it was sent; with the edge's clock this bounds the deadline check under skew. */
  sentAt: z.number().int(),
  /**
   * The cloud node waiting for the answer (commandResultTopic). Optional: an older cloud sends
   * none, and an older edge ignores it and answers on the site's topic, which every node hears.
   */
  replyTo: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional(),
});
export type Command = z.infer<typeof Command>;

export const Problem = z.object({
  status: z.number().int(),
  code: z.string(),
  title: z.string().optional(),
  detail: z.string().optional(),
  /**
   * Seconds until a retry may succeed (a 429 rate-limited at the edge): the cloud answers it as its
   * own Retry-After. Optional, so a side that does not know it ignores it (zod drops unknown keys).
   */
  retryAfterSec: z.number().int().min(0).optional(),
});

export const CommandResult = z.object({
  v: z.literal(PROTOCOL_V),
  id: z.string().min(1),
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: Problem.optional(),
});
export type CommandResult = z.infer<typeof CommandResult>;

/** The most gates a status may list (far more than any yard has): bounds what a site can make us store. */
export const MAX_REPORTED_GATES = 500;

export const SiteStatus = z.object({
  v: z.literal(PROTOCOL_V),
  state: z.enum(['online', 'offline']),
  schemaV: z.number().int(),
  version: z.string(),
  /** Rows of the edge's log the cloud has not acknowledged. */
  queued: z.number().int().min(0),
  /** Edge epoch ms when this was published (online) or connected (the will). */
  at: z.number().int(),
  /**
   * Each gate relay's driver state at the edge (GateDriverState: ok, fault, opening, simulated),
   * in an online status. Optional, so an edge and a cloud of different versions still talk: an
   * older edge leaves it out, an older cloud drops it (zod drops unknown keys). `state` is any
   * short string, so a state a newer edge adds does not make this cloud drop the whole status; the
   * cloud shows a state it does not know as `unknown` (cloud/sync/site-status.ts).
   */
  gates: z
    .array(z.object({ gateId: z.string().min(1).max(64), state: z.string().min(1).max(32) }))
    .max(MAX_REPORTED_GATES)
    .optional(),
});
export type SiteStatus = z.infer<typeof SiteStatus>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Why a received change batch (JSON-parsed, before the schema check, which would walk every row)
 * is over BATCH_LIMITS; undefined when it is within them or not a batch at all (the schema says so).
 */
export function batchOverLimits(payloadBytes: number, message: unknown): string | undefined {
  const rows = isPlainObject(message) && Array.isArray(message.rows) ? message.rows.length : 0;
  if (rows > BATCH_LIMITS.rows) return `${rows} rows (at most ${BATCH_LIMITS.rows})`;
  if (rows > 1 && payloadBytes > BATCH_LIMITS.bytes) {
    return `${payloadBytes} bytes in ${rows} rows (at most ${BATCH_LIMITS.bytes}; only a single row may be larger)`;
  }
  return undefined;
}

/** JSON.parse + schema check; undefined (never a throw) for anything malformed. */
export function decode<T>(schema: z.ZodType<T>, payload: Buffer | string): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(payload.toString()));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
