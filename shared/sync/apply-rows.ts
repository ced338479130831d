import Database from 'better-sqlite3';
import { SCHEMA_VERSION } from '../db/migrate.js';
import { type RowChange, type RowEffect, RowRejected, type RowRules } from './apply-rules.js';
import { noteDeadLetter } from './dead-letter-log.js';
import type { SyncDeps } from './deps.js';
import { syncedFields } from './entities.js';
import { parseHlc } from './hlc.js';
import type { Routing } from './routing.js';
import type { RowSql } from './row-sql.js';
import type { SiteTrust } from './site-trust.js';

/** A received change with its position in the peer's log. */
export interface Received extends RowChange {
  seq: number;
}

/** What dead_letter.data holds: the change as received, enough to apply it again. */
export interface DeadLetterPayload {
  op: 'upsert' | 'delete';
  hlc: string;
  data: Record<string, unknown>;
}

/** Effects of one transaction, published after it commits (ChangeApplier.afterCommit). */
export class Touched {
  readonly tables = new Set<string>();
  readonly yards = new Set<string>();
  readonly queuedYards = new Set<string>();
  readonly drivers = new Set<string>();
  readonly forwardedTo = new Set<string>();
  readonly entities = new Map<string, number>();
  readonly signedOut: Array<{ kind: 'user' | 'driver'; id: string }> = [];
  applied = 0;
}

/** At the cloud: the check of what a site may write, and the routing of rows on to other sites. */
export interface SiteRelay {
  trust: SiteTrust;
  routing: Routing;
}

type Attempt = { ok: true; changed: boolean } | { ok: false; foreignKey: boolean; error: string };
type Done = { row: RowChange; effect: RowEffect; forwarded: string[] };

/**
 * Rows per group savepoint. Rows nearly always apply, so a group shares one savepoint; a group in
 * which any row fails is rolled back and done again row by row, each row in its own savepoint.
 */
const GROUP = 64;

/**
 * Applies received rows inside the caller's transaction: rules (apply-rules.ts), dead letters, and
 * at the cloud the forwarding of rows other sites need into their change logs.
 */
export class RowApplier {
  private readonly sqlite: Database.Database;

  constructor(
    private readonly deps: Pick<SyncDeps, 'clock' | 'log' | 'hlc'>,
    private readonly sql: RowSql,
    private readonly rules: RowRules,
    /** The hub's part (SyncSide.hub): none at an edge (it trusts its cloud and forwards nothing). */
    private readonly hub?: SiteRelay,
  ) {
    this.sqlite = sql.sqlite;
  }

  /**
   * Applies rows in seq order. A row that fails on a foreign key is tried again after the others
   * (its reference may come later in the batch: a movement and its gate actuation name each other),
   * until a pass applies nothing more; what still fails goes to dead_letter. Other failures go to
   * dead_letter at once. One bad row never holds back the rest.
   */
  applyRows(peer: string, rows: readonly Received[], touched: Touched): { applied: number; dead: number } {
    let applied = 0;
    let dead = 0;
    let deferred: Array<{ row: Received; error: string }> = [];
    /** Once something was deferred: last seq applied per record (an older deferred change is stale). */
    const lastApplied = new Map<string, number>();
    const done = (row: Received, changed: boolean) => {
      if (changed) applied += 1;
      if (deferred.length > 0) lastApplied.set(`${row.entity}|${row.id}`, row.seq);
    };
    const one = (row: Received): Attempt => {
      const outcome = this.tryRow(peer, row, touched, false);
      if (outcome.ok) done(row, outcome.changed);
      return outcome;
    };
    for (let i = 0; i < rows.length; i += GROUP) {
      const group = rows.slice(i, i + GROUP);
      const results = this.tryGroup(peer, group);
      if (results) {
        for (const [k, r] of results.entries()) {
          if (r.effect.changed) this.record(touched, r.effect, r.forwarded);
          done(group[k]!, r.effect.changed);
        }
        continue;
      }
      for (const row of group) {
        const outcome = one(row);
        if (outcome.ok) continue;
        if (outcome.foreignKey) deferred.push({ row, error: outcome.error });
        else {
          this.deadLetter(peer, row, outcome.error);
          dead += 1;
        }
      }
    }
    for (let progress = deferred.length > 0; progress; ) {
      progress = false;
      const again: typeof deferred = [];
      for (const entry of deferred) {
        if ((lastApplied.get(`${entry.row.entity}|${entry.row.id}`) ?? 0) > entry.row.seq) continue;
        const outcome = one(entry.row);
        if (outcome.ok) progress = true;
        else again.push({ row: entry.row, error: outcome.error });
      }
      deferred = again;
    }
    for (const { row, error } of deferred) {
      this.deadLetter(peer, row, error);
      dead += 1;
    }
    return { applied, dead };
  }

  /**
   * One row in its own savepoint: all of its writes (forwarded log rows included) or none.
   * `retry`: a dead letter applied again (a newer change of the row may have replaced it).
   */
  tryRow(peer: string, row: RowChange, touched: Touched, retry: boolean, adopt = false): Attempt {
    try {
      const { effect, forwarded } = this.sqlite.transaction(() => this.applyOne(peer, row, retry, adopt))();
      if (effect.changed) this.record(touched, effect, forwarded);
      return { ok: true, changed: effect.changed || effect.superseded === true };
    } catch (err) {
      if (!isRowError(err)) throw err;
      const code = (err as { code?: unknown }).code;
      const foreignKey = code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
      const message =
        err instanceof RowRejected ? err.message : `${String(code ?? 'error')}: ${(err as Error).message}`;
      return { ok: false, foreignKey, error: message };
    }
  }

  deadLetter(peer: string, row: Received, error: string): void {
    const payload: DeadLetterPayload = { op: row.op, hlc: row.hlc, data: row.data };
    this.sql
      .statement(
        'dead|put',
        () =>
          'INSERT INTO dead_letter (peer, seq, entity, entity_id, error, data, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(peer, row.seq, row.entity, row.id, error, JSON.stringify(payload), this.deps.clock.now());
    noteDeadLetter(this.deps.log, peer, row, error);
  }

  /** A group in one savepoint; undefined (and nothing written) if any row failed. */
  private tryGroup(peer: string, group: readonly Received[]): Done[] | undefined {
    try {
      return this.sqlite.transaction(() => group.map((row) => this.applyOne(peer, row, false)))();
    } catch (err) {
      if (!isRowError(err)) throw err;
      return undefined;
    }
  }

  /**
   * `adopt`: an admin took this row of a formerly standalone edge as the cloud's own (Backlog.adopt):
   * it skips the site trust check and is inserted if absent, as the rules do for a non-owner's row.
   */
  private applyOne(peer: string, row: RowChange, retry: boolean, adopt = false): Done {
    this.assertClockWithinSkew(row);
    // At the cloud every row a site sends passes its trust check first (site-trust.ts).
    const change = this.hub && !adopt ? this.hub.trust.admit(peer, row) : row;
    const effect = this.rules.apply(change, { retry });
    // Only a change that applied advances our clock (and records a peer running ahead).
    this.deps.hlc.receive(row.hlc);
    return { row: change, effect, forwarded: effect.changed ? this.forward(peer, change, effect) : [] };
  }

  /**
   * A change stamped further ahead of our clock than the allowed skew is refused: applied, its
   * clocks would win every later merge, and our clock would follow it into the future (docs/sync.md
   * "Clock bounds"). The change's hlc, the row's own hlc and its per-field clocks are all checked.
   */
  private assertClockWithinSkew(row: RowChange): void {
    const clocks = [row.hlc];
    if (typeof row.data.hlc === 'string') clocks.push(row.data.hlc);
    if (typeof row.data.fieldHlc === 'string') {
      let fields: unknown;
      try {
        fields = JSON.parse(row.data.fieldHlc);
      } catch {
        throw new RowRejected(`[malformed] fieldHlc of ${row.entity} ${row.id} is not JSON`);
      }
      if (fields && typeof fields === 'object')
        for (const v of Object.values(fields)) clocks.push(typeof v === 'string' ? v : String(v));
    }
    for (const hlc of clocks) {
      let ahead: number;
      try {
        ahead = this.deps.hlc.aheadBy(hlc);
      } catch {
        throw new RowRejected(`[malformed] ${row.entity} ${row.id} carries a malformed clock "${hlc}"`);
      }
      if (ahead > 0) {
        throw new RowRejected(
          `[clock-ahead] ${row.entity} ${row.id} is stamped ${Math.round(ahead / 1000)} s ahead of this side's ` +
            `clock (at most ${Math.round(this.deps.hlc.maxAheadMs / 1000)} s allowed): fix the sender's clock, then retry`,
        );
      }
    }
  }

  /**
   * At the cloud: the other sites that need the row (a driver or trailer edited at one site) get it
   * in their change logs, in the same transaction, with the row's original origin.
   */
  private forward(peer: string, row: RowChange, effect: RowEffect): string[] {
    if (!this.hub || !effect.entity || !effect.stored) return [];
    const peers = this.hub.routing.peersFor(effect.entity, effect.stored).filter((p) => p !== peer);
    if (peers.length === 0) return [];
    const entity = effect.entity;
    const data = row.op === 'delete' ? { [entity.key]: row.id } : syncedFields(entity, effect.stored);
    const hlc = row.op === 'delete' ? row.hlc : String(effect.stored.hlc ?? row.hlc);
    const log = this.sql.statement(
      'change_log|forward',
      () =>
        'INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const origin = parseHlc(row.hlc).origin;
    const json = JSON.stringify(data);
    for (const p of peers) log.run(p, entity.entity, row.id, row.op, hlc, origin, SCHEMA_VERSION, json);
    return peers;
  }

  private record(touched: Touched, effect: RowEffect, forwarded: string[]): void {
    const { entity, stored } = effect;
    if (!entity || !stored) return;
    touched.applied += 1;
    touched.tables.add(entity.table);
    // Visits are derived from movements in the same savepoint.
    if (entity.entity === 'movement') touched.tables.add('visit');
    touched.entities.set(entity.entity, (touched.entities.get(entity.entity) ?? 0) + 1);
    if (typeof stored.yardId === 'string') touched.yards.add(stored.yardId);
    if (entity.entity === 'yard_task') {
      if (stored.status === 'QUEUED' && typeof stored.yardId === 'string')
        touched.queuedYards.add(stored.yardId);
      if (typeof stored.driverId === 'string') touched.drivers.add(stored.driverId);
    }
    for (const p of forwarded) touched.forwardedTo.add(p);
    if (effect.signedOut) touched.signedOut.push(effect.signedOut);
  }
}

/**
 * Whether an error is the row's fault (a constraint, a value SQLite cannot store, a refused or
 * malformed change): the row goes to dead_letter. Anything else (disk full, I/O error, a locked or
 * corrupt database) is the database's: it propagates, the whole transaction rolls back, nothing is
 * acknowledged, and the batch is applied again later.
 */
export function isRowError(err: unknown): boolean {
  if (!(err instanceof Database.SqliteError)) return err instanceof Error;
  return err.code.startsWith('SQLITE_CONSTRAINT') || ROW_SQLITE_CODES.has(err.code);
}

const ROW_SQLITE_CODES = new Set(['SQLITE_MISMATCH', 'SQLITE_TOOBIG', 'SQLITE_RANGE']);
