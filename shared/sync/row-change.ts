import type { SyncedEntity } from './entities.js';
import type { AfterCommitEvent } from './row-observers.js';
import type { Fields } from './row-sql.js';

/** One received change, as on the wire (WireRow without its seq). */
export interface RowChange {
  entity: string;
  id: string;
  op: 'upsert' | 'delete';
  hlc: string;
  data: Fields;
}

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

/** The stored row (or its absence) as already read, FOR UPDATE, in this transaction (SiteTrust). */
export interface StoredRow {
  row: Fields | undefined;
}

/** What applying one row did. */
export interface RowEffect {
  /** The row changed local data. */
  changed: boolean;
  /** An old change that a newer one already replaced (dead-letter retry only). */
  superseded?: boolean;
  entity?: SyncedEntity;
  /** The row as now stored (upsert) or as it was before it was deleted (delete): for forwarding. */
  stored?: Fields;
  /** The row as stored before this change (undefined: the change inserted it): for forwarding. */
  before?: Fields;
  /** A merge kept fields of the local row: what is stored is not what the sender holds. */
  combined?: boolean;
  /** What observers of the row announced for after the commit (a sign-out: cached principals go). */
  announced?: AfterCommitEvent[];
}
