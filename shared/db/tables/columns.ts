/** The columns that many tables share. */
import type { Generated } from 'kysely';

/** Columns of every synced table: the HLC of its last change and its version (ETag). */
export interface Synced {
  hlc: string;
  version: Generated<number>;
}
export interface Timestamps {
  createdAt: number;
  updatedAt: number;
}
/** Shared records (edited on both sides) merge field by field: the HLC of each field's last write. */
export interface Shared {
  fieldHlc: Generated<string>;
}
