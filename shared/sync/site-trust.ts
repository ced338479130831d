import { once, type SqlWork, sqlValue } from '../db/sql-work.js';
import { mayBeAdopted } from './adoption.js';
import { entityByName, type SyncedEntity } from './entities.js';
import { parseHlc } from './hlc.js';
import { ownerOf } from './ownership.js';
import type { RoutingWork } from './routing.js';
import type { RowChange, StoredRow } from './row-change.js';
import type { Fields, RowSql } from './row-sql.js';
import {
  CLOUD_ONLY_FIELDS,
  deleteRefusal,
  type OwnYard,
  SITE_FIELDS,
  sharedWriteRefusal,
} from './site-rules.js';
import { admitSplit, parseClocks, refuse } from './split-trust.js';
import { whereaboutsOf } from './unit-shares.js';

/** Attachment ref types whose target row has a yard, and the table holding it. */
const REF_TABLES: Record<string, string> = {
  movement: 'movement',
  inspection: 'truck_inspection',
  camera: 'camera',
};

/** A record without a yard (push tokens, org-wide attachments). */
const NO_YARD = Symbol('no-yard');

/**
 * The cloud's gate for what a site sends (docs/sync.md "Trust"). A site's MQTT credentials live on a
 * box in a yard, so every row it sends is untrusted input. The cloud applies a site's row only
 * where the conflict rules let that site write it:
 * - cloud-owned records (users, API keys, yards, locations, carriers, integrations, global
 *   settings, provider cameras): never, neither upsert nor delete. A formerly standalone edge's
 *   own yards, locations and carriers wait as dead letters until an admin adopts them (adoption.ts);
 * - edge-owned records: only in the site's own yards, both as sent and as stored (a site cannot
 *   take over another site's gate by sending it with its own yard id);
 * - shared records: yard tasks of its own yards; trailers and trucks placed only in its own
 *   yards (their other fields are organisation-wide and merge by field); drivers without the
 *   cloud-only fields (PIN hash, driver code, block: site-rules.ts), which are stripped so a stale
 *   or forged value can never win the merge; deletes as site-rules.ts allows.
 * A refused row throws RowRejected with the rule's name first (`[cloud-owned] ...`): it becomes a
 * dead letter naming the rule. Deletes are checked against the stored row exactly like upserts.
 */
export class SiteTrust {
  constructor(
    private readonly sql: RowSql,
    private readonly routing: RoutingWork,
  ) {}

  /**
   * The change as the cloud may apply it from `site` (possibly with fields stripped), or throws;
   * with the stored row it was judged against (locked on PostgreSQL), which the rules then use
   * instead of reading it again. `known`: the stored row as the caller read it (locked) already.
   */
  *admit(
    site: string,
    change: RowChange,
    known?: StoredRow,
  ): SqlWork<{ change: RowChange; stored?: StoredRow }> {
    const entity = entityByName(change.entity);
    if (!entity) return { change }; // the rules refuse unknown entities
    const shape = this.sql.knownShape(entity) ?? (yield* this.sql.shape(entity));
    const stored = known ? known.row : yield* this.sql.select(shape, change.id);
    return { change: yield* this.judge(site, change, entity, stored), stored: { row: stored } };
  }

  private *judge(
    site: string,
    change: RowChange,
    entity: SyncedEntity,
    stored: Fields | undefined,
  ): SqlWork<RowChange> {
    const incoming = change.op === 'upsert' ? change.data : undefined;
    // Site settings stay at their edge; the rules ignore them (routing.ts). Only a row that says it
    // is a site setting counts as one: anything else is a global setting, which is the cloud's.
    if (entity.entity === 'setting') {
      const siteSetting = incoming ? incoming.scope === 'site' : !stored || stored.scope === 'site';
      if (siteSetting) return change;
    }

    // The yards the change and its stored row sit in, and their sites, read up front: the rules
    // (site-rules.ts) ask synchronously.
    const lookup = entity.entity === 'session_location' || entity.entity === 'attachment';
    const incomingYard = !incoming
      ? undefined
      : lookup
        ? yield* this.yardOf(entity, incoming)
        : yardField(entity, incoming);
    const storedYard = !stored
      ? undefined
      : lookup
        ? yield* this.yardOf(entity, stored)
        : yardField(entity, stored);
    const yardSites = new Map<string, string | undefined>();
    for (const yardId of [incomingYard, storedYard, incoming?.yardId, stored?.yardId]) {
      if (typeof yardId === 'string' && !yardSites.has(yardId))
        yardSites.set(yardId, yield* this.routing.siteOfYard(yardId));
    }
    const ownYard: OwnYard = (yardId) => typeof yardId === 'string' && yardSites.get(yardId) === site;
    const owners = [incoming, stored].filter((r) => r !== undefined).map((r) => ownerOf(entity, r));
    if (owners.includes('cloud')) {
      // Only a row that adoption could ever take (adoption.ts) says so: never a user, a key, a
      // setting, an integration, a delete or a yard of another site.
      const advice =
        incoming && mayBeAdopted(site, entity.entity, change.op, incoming)
          ? ` If site ${site}'s edge ran standalone before it was linked, an admin can review it for adoption.`
          : '';
      refuse(
        'cloud-owned',
        `${entity.entity} ${change.id} is managed at the cloud; site ${site} may not ${change.op} it.${advice}`,
      );
    }
    if (change.op === 'delete' && !stored) {
      // Nothing to delete here; a shared record's delete would otherwise leave a tombstone for an
      // id the site never held (a pre-emptive delete of another site's future record).
      if (entity.ownership === 'shared')
        refuse('unknown-record', `no ${entity.entity} ${change.id} to delete`);
      return change;
    }
    if (owners.includes('edge')) {
      if (incoming) this.assertOwnRecord(site, entity, incoming, incomingYard, false, ownYard);
      if (stored) this.assertOwnRecord(site, entity, stored, storedYard, true, ownYard);
      return entity.entity === 'camera' && incoming ? withoutLocalSecrets(change) : change;
    }
    if (entity.ownership !== 'shared') {
      // Task events and attachments: immutable, made by either side.
      const row = incoming ?? stored!;
      const yardId = incoming ? incomingYard : storedYard;
      yield* this.assertEventOrAttachment(site, entity, change, row, yardId, ownYard);
      return change;
    }
    if (change.op === 'delete') {
      const refusal = deleteRefusal(entity, stored!, ownYard);
      if (refusal) refuse('site-scope', refusal);
      return change;
    }
    return this.admitShared(site, entity, change, stored, ownYard);
  }

  private admitShared(
    site: string,
    entity: SyncedEntity,
    change: RowChange,
    stored: Fields | undefined,
    ownYard: OwnYard,
  ): RowChange {
    const data = change.data;
    if (SITE_FIELDS[entity.entity]) return admitSplit(site, entity, change, stored, ownYard);
    if (entity.entity === 'yard_task') {
      if (!ownYard(data.yardId) || (stored && !ownYard(stored.yardId))) {
        refuse('other-site', `yard task ${change.id} is not in a yard of site ${site}`);
      }
      return change;
    }
    if (!stored) {
      // A new record: made at the site with the cloud-only fields at their defaults, in its yards.
      const refusal = sharedWriteRefusal(entity, data, { op: 'insert' }, ownYard);
      if (refusal) refuse('cloud-only-field', refusal);
      const placed = whereaboutsOf(entity); // a site places units only in its own yards
      if (placed && data.yardId != null && !ownYard(data.yardId)) {
        refuse('other-site', `${entity.entity} ${change.id} placed in a yard of another site`);
      }
      return change;
    }
    const keep: string[] = [...(CLOUD_ONLY_FIELDS[entity.entity] ?? [])];
    const placed = whereaboutsOf(entity); // a site places units only in its own yards
    // A site places units only in its own yards. Its copy of a unit that stands in another site's
    // yard still names that yard (with that site's older field clock): the cloud's placement stays.
    if (placed && data.yardId != null && !ownYard(data.yardId)) keep.push(...placed);
    return keep.length > 0 ? withStoredFields(change, keep, stored) : change;
  }

  /** `yardId`: the row's yardOf. */
  private assertOwnRecord(
    site: string,
    entity: SyncedEntity,
    row: Fields,
    yardId: unknown,
    isStored: boolean,
    ownYard: OwnYard,
  ): void {
    if (yardId === NO_YARD) {
      // Push tokens: the site that last wrote the stored one owns it.
      if (isStored && typeof row.hlc === 'string' && parseHlc(row.hlc).origin !== site) {
        refuse('other-site', `${entity.entity} ${String(row[entity.key])} belongs to another site`);
      }
      return;
    }
    if (!ownYard(yardId)) {
      refuse(
        'other-site',
        `${entity.entity} ${String(row[entity.key])} is in yard ${String(yardId ?? 'unknown')}, not a yard of site ${site}`,
      );
    }
  }

  private *assertEventOrAttachment(
    site: string,
    entity: SyncedEntity,
    change: RowChange,
    row: Fields,
    yardId: unknown,
    ownYard: OwnYard,
  ): SqlWork<void> {
    if (yardId === NO_YARD) {
      if (change.op === 'delete')
        refuse('other-site', `${entity.entity} ${change.id} is not of site ${site}`);
      return;
    }
    if (!ownYard(yardId))
      refuse('other-site', `${entity.entity} ${change.id} is not in a yard of site ${site}`);
    // An event names its record: that record must be in the same yard (not another site's).
    const parent = EVENT_PARENTS[entity.entity];
    const parentId = parent ? row[parent.field] : undefined;
    if (parent && typeof parentId === 'string') {
      const parents = entityByName(parent.entity)!;
      const shape = this.sql.knownShape(parents) ?? (yield* this.sql.shape(parents));
      const record = yield* this.sql.select(shape, parentId);
      if (record && record.yardId !== yardId)
        refuse('other-site', `${parent.words} ${parentId} is in another yard`);
    }
  }

  /**
   * The yard a record sits in, read from the record it belongs to (session locations, attachments;
   * the others: yardField, no statement).
   */
  private *yardOf(entity: SyncedEntity, row: Fields): SqlWork<unknown> {
    if (entity.entity === 'session_location') {
      return typeof row.sessionId === 'string'
        ? yield* this.yardOfRow('driver_session', row.sessionId)
        : undefined;
    }
    if (entity.entity === 'attachment') {
      const refType = typeof row.refType === 'string' ? row.refType : '';
      if (refType === 'yard') return row.refId;
      const table = REF_TABLES[refType];
      if (!table || typeof row.refId !== 'string') return NO_YARD;
      return (yield* this.yardOfRow(table, row.refId)) ?? NO_YARD;
    }
    return yardField(entity, row);
  }

  private *yardOfRow(table: string, id: string): SqlWork<unknown> {
    const stmt = this.sql.statement(
      `trust|yard-of|${table}`,
      'value',
      `SELECT yard_id FROM "${table}" WHERE id = ?`,
    );
    // A session's pings come by the hundred in a batch and its yard never changes: read once per
    // transaction (a row not there yet is asked again: the batch may insert it).
    return yield* once(
      `trust|yard-of|${table}|${id}`,
      () => sqlValue(stmt, [id]),
      (yard) => yard != null,
    );
  }
}

/** Immutable events and the record each names (which must be in the event's yard). */
const EVENT_PARENTS: Readonly<Record<string, { field: string; entity: string; words: string }>> = {
  task_event: { field: 'taskId', entity: 'yard_task', words: 'task' },
  appointment_event: { field: 'appointmentId', entity: 'appointment', words: 'appointment' },
};

/** The yard of a record that names its own (push tokens have none). */
function yardField(entity: SyncedEntity, row: Fields): unknown {
  return entity.entity === 'push_token' ? NO_YARD : row.yardId;
}

/**
 * The change with some fields (and their field clocks) set to the stored row's: the site's value
 * for them can never win the merge, whatever clock it claims. When the site's copy already held
 * the stored values (the usual case), the change is exactly as sent and both sides keep one version.
 */
function withStoredFields(change: RowChange, fields: readonly string[], stored: Fields): RowChange {
  const data: Fields = { ...change.data };
  const storedClocks = parseClocks(stored.fieldHlc);
  const clocks = parseClocks(data.fieldHlc);
  if (!storedClocks || !clocks)
    refuse('malformed', `fieldHlc of ${change.entity} ${change.id} is not a JSON object`);
  for (const f of fields) {
    data[f] = stored[f];
    clocks[f] = storedClocks[f] ?? String(stored.hlc);
  }
  data.fieldHlc = JSON.stringify(clocks);
  return { ...change, data };
}

/** ONVIF passwords stay at the edge: the cloud reaches cameras only through it (and drops old copies). */
function withoutLocalSecrets(change: RowChange): RowChange {
  return { ...change, data: { ...change.data, onvifPassword: null } };
}
