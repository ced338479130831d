import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { type SqlWork, sqlRow, sqlRows, sqlRun, sqlValue, statement } from '../db/sql-work.js';
import type { SyncDeps } from './deps.js';
import { PROTOCOL_V } from './protocol.js';

/** One Batch message (protocol.ts), ready to publish. */
export interface OutboxBatch {
  from: number;
  /** Seq of the last row in the batch. */
  to: number;
  rows: number;
  /** The Batch message as JSON text. */
  json: string;
}

export interface BatchLimits {
  batchRows: number;
  batchBytes: number;
}

/** How far a peer acknowledged our log (sync_cursor, the sender's columns). */
export interface SendCursor {
  ackedSeq: number;
  ackedAt: number | null;
}

/** A change-log row as the batch needs it, in selectRows' column order. */
export type LogRow = [
  seq: number,
  entity: string,
  entityId: string,
  op: string,
  hlc: string,
  schemaV: number,
  data: string,
];

/*
 * The send side's statements and work, written once for both databases (shared/db/sql-work.ts):
 * driven synchronously on SQLite (the classes below, and SendStore inside exclusive()) and awaited
 * on PostgreSQL (SendStore, send-store.ts).
 */

const selectStream = statement('send|stream', 'value', "SELECT value FROM sync_meta WHERE name = 'stream'");
const updateStream = statement(
  'send|stream-set',
  'changes',
  "UPDATE sync_meta SET value = ? WHERE name = 'stream'",
);
const resetAcks = statement(
  'send|acks-reset',
  'changes',
  'UPDATE sync_cursor SET acked_seq = 0, acked_at = NULL',
);
const selectRows = statement(
  'send|rows',
  'rows',
  'SELECT seq, entity, entity_id, op, hlc, schema_v, data FROM change_log WHERE peer = ? AND seq >= ? ORDER BY seq LIMIT ?',
);
const selectOldestAfter = statement(
  'send|oldest',
  'value',
  'SELECT hlc FROM change_log WHERE peer = ? AND seq > ? ORDER BY seq LIMIT 1',
);
/**
 * The highest seq this database ever gave a change-log row, pruned or not: SQLite's AUTOINCREMENT
 * high-water mark, PostgreSQL's identity sequence (its last value, null before the first; it may
 * also count a seq whose transaction rolled back, which only makes it higher).
 */
const selectTopSeq = statement('send|top', 'value', (dialect) =>
  dialect === 'postgres'
    ? "SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('change_log', 'seq')::regclass), 0)"
    : "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'change_log'), 0)",
);
const selectCursor = statement(
  'send|cursor',
  'row',
  'SELECT acked_seq AS "ackedSeq", acked_at AS "ackedAt" FROM sync_cursor WHERE peer = ?',
);
// Acks can arrive late and out of order: the stored position only moves forward...
const raiseCursor = statement(
  'send|cursor-raise',
  'changes',
  `INSERT INTO sync_cursor (peer, acked_seq, acked_at) VALUES (?, ?, ?)
   ON CONFLICT (peer) DO UPDATE SET
     acked_seq = CASE WHEN excluded.acked_seq > sync_cursor.acked_seq THEN excluded.acked_seq ELSE sync_cursor.acked_seq END,
     acked_at = excluded.acked_at`,
);
// ...except when the peer is known to have gone back (a replaced database, a resync).
const setCursor = statement(
  'send|cursor-set',
  'changes',
  `INSERT INTO sync_cursor (peer, acked_seq, acked_at) VALUES (?, ?, ?)
   ON CONFLICT (peer) DO UPDATE SET acked_seq = excluded.acked_seq, acked_at = excluded.acked_at`,
);
const selectMeta = statement('send|meta', 'value', 'SELECT value FROM sync_meta WHERE name = ?');
const putMetaStmt = statement(
  'send|meta-put',
  'changes',
  'INSERT INTO sync_meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
);
const deleteMetaStmt = statement('send|meta-delete', 'changes', 'DELETE FROM sync_meta WHERE name = ?');

export function* streamWork(): SqlWork<string> {
  const value = yield* sqlValue(selectStream, []);
  if (typeof value !== 'string') throw new Error('sync_meta has no stream id (migration 0004 not applied?)');
  return value;
}

/** A new stream id, and every peer's acknowledged position back to 0 (run it in one transaction). */
export function* rotateWork(): SqlWork<string> {
  const next = randomBytes(16).toString('hex');
  yield* sqlRun(updateStream, [next]);
  yield* sqlRun(resetAcks, []);
  return next;
}

export function* logRowsWork(peer: string, from: number, limit: number): SqlWork<LogRow[]> {
  const rows = yield* sqlRows(selectRows, [peer, from, limit]);
  return rows.map((r) => [
    Number(r.seq),
    String(r.entity),
    String(r.entity_id),
    String(r.op),
    String(r.hlc),
    Number(r.schema_v),
    String(r.data),
  ]);
}

/**
 * The same read as logRowsWork, prepared on better-sqlite3 with rows as arrays: the catch-up of a
 * week offline reads 150,000 rows, and an object per row cost it a third more CPU than this.
 * Synchronous: call it inside exclusive().
 */
export function prepareLogRows(
  sqlite: Database.Database,
): (peer: string, from: number, limit: number) => LogRow[] {
  const prepared = sqlite.prepare(selectRows.text('sqlite')).raw(true);
  return (peer, from, limit) => prepared.all(peer, from, limit) as LogRow[];
}

export function* oldestQueuedHlcWork(peer: string, after: number): SqlWork<string | undefined> {
  return ((yield* sqlValue(selectOldestAfter, [peer, after])) as string | undefined) ?? undefined;
}

export function* topSeqWork(): SqlWork<number> {
  return Number((yield* sqlValue(selectTopSeq, [])) ?? 0);
}

export function* cursorWork(peer: string): SqlWork<SendCursor | undefined> {
  const row = yield* sqlRow(selectCursor, [peer]);
  return row
    ? { ackedSeq: Number(row.ackedSeq), ackedAt: row.ackedAt === null ? null : Number(row.ackedAt) }
    : undefined;
}

export function* saveCursorWork(
  peer: string,
  ackedSeq: number,
  ackedAt: number | null,
  exact: boolean,
): SqlWork<void> {
  yield* sqlRun(exact ? setCursor : raiseCursor, [peer, ackedSeq, ackedAt]);
}

export function* metaWork(name: string): SqlWork<string | undefined> {
  return ((yield* sqlValue(selectMeta, [name])) as string | undefined) ?? undefined;
}

/** sync_meta name of the highest seq pruned from a peer's log (shared/sync/prune.ts). */
export const prunedKey = (peer: string) => `pruned:${peer}`;

/** The highest seq pruned from `peer`'s log (0 if none). */
export function* prunedUpToWork(peer: string): SqlWork<number> {
  const value = yield* metaWork(prunedKey(peer));
  return value === undefined ? 0 : Number(value);
}

export function* putMetaWork(name: string, value: string): SqlWork<void> {
  yield* sqlRun(putMetaStmt, [name, value]);
}

export function* deleteMetaWork(name: string): SqlWork<void> {
  yield* sqlRun(deleteMetaStmt, [name]);
}

/**
 * The batch for `peer` starting at seq `from` out of the log rows read from `from` on (protocol.ts:
 * it covers `from..to` and holds every row of the peer in that range), at most batchBytes bytes;
 * undefined when there are no rows. A single row larger than batchBytes travels alone. The stored
 * `data` JSON text goes into the message as it is (no parse and re-stringify: a catch-up of
 * 150,000 rows spends its time on the wire, not here).
 */
export function buildBatch(
  limits: BatchLimits,
  site: string,
  stream: string,
  from: number,
  rows: readonly LogRow[],
): OutboxBatch | undefined {
  if (rows.length === 0) return undefined;
  // Header and closing bytes, with room for the widest `to` and schemaV.
  const head = `{"v":${PROTOCOL_V},"site":${JSON.stringify(site)},"stream":${JSON.stringify(stream)},"from":${from},`;
  let bytes = Buffer.byteLength(head) + 48;
  const parts: string[] = [];
  let to = from;
  let schemaV = 1;
  for (const [seq, entity, entityId, op, hlc, v, data] of rows) {
    const part = `{"seq":${seq},"entity":${JSON.stringify(entity)},"id":${JSON.stringify(entityId)},"op":${JSON.stringify(op)},"hlc":${JSON.stringify(hlc)},"data":${data}}`;
    const size = Buffer.byteLength(part) + 1;
    if (parts.length > 0 && bytes + size > limits.batchBytes) break;
    parts.push(part);
    bytes += size;
    to = seq;
    if (v > schemaV) schemaV = v;
  }
  return {
    from,
    to,
    rows: parts.length,
    json: `${head}"to":${to},"schemaV":${schemaV},"rows":[${parts.join(',')}]}`,
  };
}

/** An empty batch `from..from - 1` (the sender's probe for the peer's position). */
export function probeBatch(site: string, stream: string, from: number): string {
  return `{"v":${PROTOCOL_V},"site":${JSON.stringify(site)},"stream":${JSON.stringify(stream)},"from":${from},"to":${from - 1},"schemaV":1,"rows":[]}`;
}

/**
 * Stores a link's acknowledged position (read from the link when the write runs, so the newest
 * wins); writes coalesce while one is under way: one fsync (one commit) per burst of acks, not one
 * per ack.
 */
export class AckWriter {
  private dirty = false;
  private exact = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly log: SyncDeps['log'],
    private readonly save_: (cursor: SendCursor, exact: boolean) => Promise<void>,
    private readonly peer: string,
    private readonly position: () => SendCursor,
  ) {}

  /** `exact`: store the position even if lower than the stored one (the peer went back). */
  save(exact: boolean): void {
    this.dirty = true;
    if (exact) this.exact = true;
    this.running ??= this.flush().finally(() => {
      this.running = undefined;
    });
  }

  async flushed(): Promise<void> {
    await this.running;
  }

  private async flush(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      const exact = this.exact;
      this.exact = false;
      await this.save_(this.position(), exact).catch((err: Error) =>
        this.log.error({ peer: this.peer, err: err.message }, 'ack position not stored'),
      );
    }
  }
}
