import { type SqlWork, sqlRun, statement } from '../db/sql-work.js';
import type { CounterAdds } from './counter-adds.js';
import { entityByName, type SyncedEntity } from './entities.js';
import { mergeShared } from './merge.js';
import { ownerOf } from './ownership.js';
import { keyedData, sameValues, withKey } from './received-data.js';
import type { RowChange, RowEffect, StoredRow } from './row-change.js';
import { RowRejected } from './row-errors.js';
import type { AfterCommitEvent, RowObservers } from './row-observers.js';
import type { Fields, RowSql, TableShape } from './row-sql.js';
import { isTombstoned, leaveTombstone } from './tombstones.js';

const UNCHANGED: RowEffect = { changed: false };

type UpsertRule = 'ignore' | 'merge' | 'task-event' | 'insert-if-absent' | 'overwrite';

export interface ApplyOptions {
  /** A dead letter applied again (a newer change of the row may have replaced it). */
  retry?: boolean;
  /** The stored row, read just before (saves reading it again). */
  stored?: StoredRow | undefined;
  /** Where observers' counter additions are summed (RowWrite.counters); absent: written at once. */
  counters?: CounterAdds | undefined;
}

// biome-ignore lint/correctness/useYield: work that needs no statement
function* unchanged(): SqlWork<RowEffect> {
  return UNCHANGED;
}

/**
 * The conflict rules (docs/sync.md "Conflict rules") for one received row, by the row's owner (ownership.ts) and this
 * side's role:
 * - the owner's side receiving (the cloud from an edge for edge-owned rows, an edge from the cloud
 *   for cloud-owned rows): mutable records take the full row, deletes delete; immutable ones are
 *   inserted if absent and never updated;
 * - the other side receiving (a standalone edge's master data adopted by the cloud, the cloud
 *   restoring an edge's own rows): insert if absent, otherwise the local copy wins; deletes ignored;
 * - task events and attachments (their creator's, immutable): insert if absent; deletes delete;
 * - shared records: per-field merge (merge.ts); a delete wins over everything and leaves a tombstone
 *   that makes later upserts of the id no-ops.
 * Site-scoped settings are each edge's own: the cloud ignores the ones edges log (routing.ts).
 */
export class RowRules {
  constructor(
    private readonly sql: RowSql,
    /** The owner whose rows are final when they come from it (SyncSide.finalFrom). */
    private readonly finalFrom: 'edge' | 'cloud',
    /**
     * Told of each row this writes (ChangeCapture.observers), with the row as stored, and before a
     * row is deleted: the modules' derived rules and read models, as for a local write.
     */
    private readonly observers: RowObservers,
  ) {}

  /**
   * Applies one change. Throws on a database error (constraint, foreign key) or a RowRejected.
   * Not a generator itself: it hands back the generator of the rule that applies, so SQLite's hot
   * path resumes one level of `yield*` less for each statement.
   */
  apply(change: RowChange, opts: ApplyOptions = {}): SqlWork<RowEffect> {
    const entity = entityByName(change.entity);
    if (!entity) throw new RowRejected(`unknown entity "${change.entity}"`);
    const shape = this.sql.knownShape(entity);
    return shape ? this.applyTo(shape, change, opts) : this.applyAfterShape(entity, change, opts);
  }

  private *applyAfterShape(entity: SyncedEntity, change: RowChange, opts: ApplyOptions): SqlWork<RowEffect> {
    return yield* this.applyTo(yield* this.sql.shape(entity), change, opts);
  }

  private applyTo(shape: TableShape, change: RowChange, opts: ApplyOptions): SqlWork<RowEffect> {
    const known = opts.stored;
    const counters = opts.counters;
    if (change.op === 'delete') return this.applyDelete(shape, change, known, counters);

    const data = withKey(shape, change);
    switch (this.ruleOf(shape.entity, data)) {
      case 'ignore':
        return unchanged();
      case 'merge':
        return this.merge(shape, data, known, counters);
      case 'task-event':
        return this.taskEvent(shape, data, counters);
      case 'insert-if-absent':
        return this.insertIfAbsent(shape, data, counters);
      case 'overwrite':
        return this.overwrite(shape, data, opts.retry ? change.hlc : undefined, known, counters);
    }
  }

  /** Which rule an upsert of this entity with this data gets here (see the class comment). */
  private ruleOf(entity: SyncedEntity, data: Fields): UpsertRule {
    if (entity.entity === 'setting' && data.scope === 'site') return 'ignore';
    const owner = ownerOf(entity, data);
    if (owner === 'both') {
      if (entity.ownership === 'shared') return 'merge';
      if (entity.entity === 'task_event') return 'task-event';
      return 'insert-if-absent';
    }
    if (!this.ownerSide(owner) || entity.ownership === 'edge-immutable') return 'insert-if-absent';
    return 'overwrite';
  }

  /**
   * The change's table and data when its whole rule is an insert if absent and no observer follows
   * the table: such rows of one table can be written together in one statement (apply-runs.ts) with
   * the same effect as one by one. Undefined for any other change (or a shape not read yet).
   */
  plainInsert(change: RowChange): { shape: TableShape; data: Fields } | undefined {
    if (change.op !== 'upsert') return undefined;
    const entity = entityByName(change.entity);
    const shape = entity && this.sql.knownShape(entity);
    if (!shape || this.observers.watches(shape.entity.table)) return undefined;
    const data = keyedData(shape, change);
    if (!data) return undefined; // refused one by one (withKey)
    return this.ruleOf(shape.entity, data) === 'insert-if-absent' ? { shape, data } : undefined;
  }

  /** A task event: inserted if absent, unless its task was deleted (tombstoned). */
  private *taskEvent(shape: TableShape, data: Fields, counters: CounterAdds | undefined): SqlWork<RowEffect> {
    if (yield* isTombstoned('yard_task', data.taskId)) return UNCHANGED;
    return yield* this.insertIfAbsent(shape, data, counters);
  }

  /** Whether this side receives rows of this owner from the owner (the owner's word is final). */
  private ownerSide(owner: 'edge' | 'cloud'): boolean {
    return owner === this.finalFrom;
  }

  private *insertIfAbsent(
    shape: TableShape,
    data: Fields,
    counters: CounterAdds | undefined,
  ): SqlWork<RowEffect> {
    if (!(yield* this.sql.insert(shape, data, true))) return UNCHANGED;
    const effect: RowEffect = { changed: true, entity: shape.entity, stored: data };
    if (this.observers.watches(shape.entity.table))
      yield* this.written(shape, undefined, String(data[shape.keyField]), effect, counters);
    return effect;
  }

  /**
   * The owner's full row. `retryHlc`: a dead letter being retried, which a newer change of the same
   * row (a larger or equal stored hlc) has replaced meanwhile.
   */
  private *overwrite(
    shape: TableShape,
    data: Fields,
    retryHlc: string | undefined,
    known: StoredRow | undefined,
    counters: CounterAdds | undefined,
  ): SqlWork<RowEffect> {
    const id = String(data[shape.keyField]);
    // Other ids only: the row itself stays as read.
    if (shape.entity.entity === 'push_token') yield* this.replacePushTokens(data);
    const effect: RowEffect = { changed: true, entity: shape.entity, stored: data };
    const local = yield* this.selectOrInsert(shape, id, data, known, effect, counters);
    if (!local) return effect;
    if (retryHlc !== undefined && String(local.hlc) >= retryHlc) return { changed: false, superseded: true };
    if (sameValues(local, data)) return UNCHANGED;
    yield* this.sql.update(shape, id, data);
    effect.stored = { ...local, ...data };
    effect.before = local;
    if (this.observers.watches(shape.entity.table)) yield* this.written(shape, local, id, effect, counters);
    return effect;
  }

  private *merge(
    shape: TableShape,
    data: Fields,
    known: StoredRow | undefined,
    counters: CounterAdds | undefined,
  ): SqlWork<RowEffect> {
    const id = String(data[shape.keyField]);
    if (yield* isTombstoned(shape.entity.entity, id)) return UNCHANGED;
    const effect: RowEffect = { changed: true, entity: shape.entity, stored: data };
    const local = yield* this.selectOrInsert(shape, id, data, known, effect, counters);
    if (!local) return effect;
    const fields = shape.columns.map((c) => c.field);
    const result = mergeShared(local, data, fields, shape.keyField, shape.entity.entity === 'yard_task');
    if (result.kind === 'local') return UNCHANGED;
    yield* this.sql.update(shape, id, result.row);
    effect.stored = { ...local, ...result.row };
    effect.before = local;
    effect.combined = result.kind === 'merged';
    if (this.observers.watches(shape.entity.table)) yield* this.written(shape, local, id, effect, counters);
    return effect;
  }

  /**
   * The stored row, locked (rowSql.select); when there is none, `data` is inserted and undefined
   * returned. The insert gives way to a row another transaction inserted meanwhile (two sites
   * sending the same new trailer to two cloud nodes): that row is then read and returned.
   */
  private *selectOrInsert(
    shape: TableShape,
    id: string,
    data: Fields,
    known: StoredRow | undefined,
    effect: RowEffect,
    counters: CounterAdds | undefined,
  ): SqlWork<Fields | undefined> {
    const local = known ? known.row : yield* this.sql.select(shape, id);
    if (local) return local;
    if (yield* this.sql.insert(shape, data, true)) {
      if (this.observers.watches(shape.entity.table))
        yield* this.written(shape, undefined, id, effect, counters);
      return undefined;
    }
    const raced = yield* this.sql.select(shape, id);
    if (!raced) throw new RowRejected(`${shape.entity.entity} ${id} could neither be inserted nor read`);
    return raced;
  }

  private *applyDelete(
    shape: TableShape,
    change: RowChange,
    known: StoredRow | undefined,
    counters: CounterAdds | undefined,
  ): SqlWork<RowEffect> {
    const entity = shape.entity;
    const local = known ? known.row : yield* this.sql.select(shape, change.id);
    if (entity.ownership === 'shared') {
      yield* leaveTombstone(entity.entity, change.id, change.hlc);
    } else {
      if (!local) return UNCHANGED;
      // Site settings are this side's own; other rows are deleted by their owner or creator only.
      if (entity.entity === 'setting' && local.scope === 'site') return UNCHANGED;
      const owner = ownerOf(entity, local);
      if (owner !== 'both' && !this.ownerSide(owner)) return UNCHANGED;
    }
    if (!local) return UNCHANGED;
    const effect: RowEffect = { changed: true, entity, stored: local, before: local };
    // What references the row goes first (RowObservers.addBeforeDelete: a yard task's events).
    if (this.observers.watchesDeletes(entity.table)) yield* this.observers.deletingWork(entity.table, local);
    yield* this.sql.delete(shape, change.id);
    if (this.observers.watches(entity.table)) yield* this.written(shape, local, undefined, effect, counters);
    return effect;
  }

  /**
   * Tells the observers of the table what the row was and is: read back as stored, so columns the
   * change left out (defaults, a peer's older schema) are there too. What they announce for after
   * the commit goes into the row's effect. Callers first check that the table has observers (no
   * generator made for the others).
   */
  private *written(
    shape: TableShape,
    before: Fields | undefined,
    afterId: string | undefined,
    effect: RowEffect,
    counters: CounterAdds | undefined,
  ): SqlWork<void> {
    const table = shape.entity.table;
    const after = afterId === undefined ? undefined : yield* this.sql.select(shape, afterId);
    const announce = (event: AfterCommitEvent) => {
      effect.announced = [...(effect.announced ?? []), event];
    };
    yield* this.observers.work(table, before, after, announce, counters);
  }

  /** The tables observers write beside a row of this table (their caches go with the row's). */
  writtenBeside(table: string): ReadonlySet<string> {
    return this.observers.writtenBeside(table);
  }

  /**
   * One push token per driver and device, and a token text belongs to one driver (shared yard
   * phones): the cloud receives tokens from every site, so a device registered at another site
   * before gives way to the newest registration, as savePushToken does at an edge.
   */
  private *replacePushTokens(data: Fields): SqlWork<void> {
    yield* sqlRun(PUSH_TOKENS_REPLACED, [
      data.id,
      data.driverId ?? null,
      data.deviceId ?? null,
      data.token ?? null,
    ]);
  }
}

const PUSH_TOKENS_REPLACED = statement(
  'push_token|replace',
  'changes',
  'DELETE FROM push_token WHERE id <> ? AND ((driver_id = ? AND device_id = ?) OR token = ?)',
);
