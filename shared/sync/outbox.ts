import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { sqliteOf } from '../db/database.js';
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

type LogRow = [
  seq: number,
  entity: string,
  entityId: string,
  op: string,
  hlc: string,
  schemaV: number,
  data: string,
];

/**
 * Runs synchronous better-sqlite3 work while no Kysely transaction is open on the shared connection.
 * Kysely's SQLite driver hands its one connection out under a mutex, so holding it means every
 * transaction opened through Kysely has committed or rolled back: reads see committed rows only, and
 * writes cannot land inside someone else's transaction.
 */
export async function exclusive<T>(deps: Pick<SyncDeps, 'db'>, work: () => T): Promise<T> {
  return deps.db.kysely.connection().execute(async () => {
    if (sqliteOf(deps.db, 'the sync outbox').inTransaction) {
      throw new Error('a transaction outside Kysely is open on the sync connection');
    }
    return work();
  });
}

/**
 * This database's change-log stream id (sync_meta 'stream'). Rotating it tells every peer that our
 * seqs start over (a restored database): peers reset their applied position on the new stream, and
 * every send position here starts again from the beginning.
 */
export class StreamId {
  private value: string | undefined;
  private readonly rotateListeners: Array<(stream: string) => void> = [];

  constructor(private readonly sqlite: Database.Database) {}

  /** Synchronous read (cached): call from exclusive() or after the first read. */
  current(): string {
    if (this.value === undefined) {
      const row = this.sqlite.prepare("SELECT value FROM sync_meta WHERE name = 'stream'").get() as
        | { value: string }
        | undefined;
      if (!row) throw new Error('sync_meta has no stream id (migration 0004 not applied?)');
      this.value = row.value;
    }
    return this.value;
  }

  /** Call inside exclusive(): a new stream id, and every peer's acknowledged position back to 0. */
  rotate(): string {
    const next = randomBytes(16).toString('hex');
    this.sqlite.transaction(() => {
      this.sqlite.prepare("UPDATE sync_meta SET value = ? WHERE name = 'stream'").run(next);
      this.sqlite.prepare('UPDATE sync_cursor SET acked_seq = 0, acked_at = NULL').run();
    })();
    this.value = next;
    for (const l of this.rotateListeners) l(next);
    return next;
  }

  onRotate(listener: (stream: string) => void): void {
    this.rotateListeners.push(listener);
  }
}

/**
 * Reads peers' change logs into batches. The stored `data` JSON text goes into the message as it is
 * (no parse and re-stringify: a catch-up of 150,000 rows spends its time on the wire, not here).
 * Every method is synchronous: call it inside exclusive().
 */
export class Outbox {
  private readonly selectRows: Database.Statement;
  private readonly oldestAfter: Database.Statement;
  private readonly topStmt: Database.Statement;

  constructor(
    sqlite: Database.Database,
    private readonly limits: BatchLimits,
    private readonly stream: StreamId,
  ) {
    this.selectRows = sqlite
      .prepare(
        'SELECT seq, entity, entity_id, op, hlc, schema_v, data FROM change_log WHERE peer = ? AND seq >= ? ORDER BY seq LIMIT ?',
      )
      .raw(true);
    this.oldestAfter = sqlite
      .prepare('SELECT hlc FROM change_log WHERE peer = ? AND seq > ? ORDER BY seq LIMIT 1')
      .pluck(true);
    this.topStmt = sqlite.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'change_log'").pluck(true);
  }

  /**
   * The batch for `peer` starting at seq `from` (protocol.ts: it covers `from..to` and holds every row
   * of the peer in that range), at most batchRows rows and batchBytes bytes; undefined when the peer
   * has no row at or after `from`. A single row larger than batchBytes travels alone.
   */
  read(peer: string, site: string, from: number): OutboxBatch | undefined {
    const rows = this.selectRows.all(peer, from, this.limits.batchRows) as LogRow[];
    if (rows.length === 0) return undefined;
    const stream = this.stream.current();
    // Header and closing bytes, with room for the widest `to` and schemaV.
    const head = `{"v":${PROTOCOL_V},"site":${JSON.stringify(site)},"stream":${JSON.stringify(stream)},"from":${from},`;
    let bytes = Buffer.byteLength(head) + 48;
    const parts: string[] = [];
    let to = from;
    let schemaV = 1;
    for (const [seq, entity, entityId, op, hlc, v, data] of rows) {
      const part = `{"seq":${seq},"entity":${JSON.stringify(entity)},"id":${JSON.stringify(entityId)},"op":${JSON.stringify(op)},"hlc":${JSON.stringify(hlc)},"data":${data}}`;
      const size = Buffer.byteLength(part) + 1;
      if (parts.length > 0 && bytes + size > this.limits.batchBytes) break;
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

  /** An empty batch `from..from - 1` (PeerLink's probe for the peer's position). */
  probe(site: string, from: number): string {
    const stream = JSON.stringify(this.stream.current());
    return `{"v":${PROTOCOL_V},"site":${JSON.stringify(site)},"stream":${stream},"from":${from},"to":${from - 1},"schemaV":1,"rows":[]}`;
  }

  /**
   * HLC of the oldest row for `peer` after `after`, if any (for lag): one step on the (peer, seq)
   * index. Queue depths come from PeerCounts (peer-counts.ts), never from counting rows here.
   */
  oldestQueuedHlc(peer: string, after: number): string | undefined {
    return (this.oldestAfter.get(peer, after) as string | undefined) ?? undefined;
  }

  /**
   * The highest seq this database ever gave a change-log row (any peer; AUTOINCREMENT's high-water
   * mark survives pruning). A peer acknowledging more than this saw a future we no longer have.
   */
  topSeq(): number {
    return Number(this.topStmt.get() ?? 0);
  }
}

/** The sender's side of sync_cursor: how far the peer acknowledged our log. Call inside exclusive(). */
export class SendCursors {
  private readonly selectStmt: Database.Statement;
  private readonly raiseStmt: Database.Statement;
  private readonly setStmt: Database.Statement;

  constructor(sqlite: Database.Database) {
    this.selectStmt = sqlite.prepare(
      'SELECT acked_seq AS ackedSeq, acked_at AS ackedAt FROM sync_cursor WHERE peer = ?',
    );
    // Acks can arrive late and out of order: the stored position only moves forward...
    this.raiseStmt = sqlite.prepare(
      `INSERT INTO sync_cursor (peer, acked_seq, acked_at) VALUES (?, ?, ?)
       ON CONFLICT (peer) DO UPDATE SET acked_seq = max(acked_seq, excluded.acked_seq), acked_at = excluded.acked_at`,
    );
    // ...except when the peer is known to have gone back (a replaced database, a resync).
    this.setStmt = sqlite.prepare(
      `INSERT INTO sync_cursor (peer, acked_seq, acked_at) VALUES (?, ?, ?)
       ON CONFLICT (peer) DO UPDATE SET acked_seq = excluded.acked_seq, acked_at = excluded.acked_at`,
    );
  }

  /** Undefined when the peer never had a cursor row. */
  get(peer: string): { ackedSeq: number; ackedAt: number | null } | undefined {
    return this.selectStmt.get(peer) as { ackedSeq: number; ackedAt: number | null } | undefined;
  }

  save(peer: string, ackedSeq: number, ackedAt: number | null, exact: boolean): void {
    (exact ? this.setStmt : this.raiseStmt).run(peer, ackedSeq, ackedAt);
  }
}

/**
 * Stores a link's acknowledged position (read from the link when the write runs, so the newest
 * wins); writes coalesce while one is under way: one fsync per burst of acks, not one per ack.
 */
export class AckWriter {
  private dirty = false;
  private exact = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly deps: Pick<SyncDeps, 'db' | 'log'>,
    private readonly cursors: SendCursors,
    private readonly peer: string,
    private readonly position: () => { ackedSeq: number; ackedAt: number | null },
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
      await exclusive(this.deps, () => {
        const exact = this.exact;
        this.exact = false;
        const { ackedSeq, ackedAt } = this.position();
        this.cursors.save(this.peer, ackedSeq, ackedAt, exact);
      }).catch((err: Error) =>
        this.deps.log.error({ peer: this.peer, err: err.message }, 'ack position not stored'),
      );
    }
  }
}
