import type { RowChange } from './row-change.js';
import { RowRejected } from './row-errors.js';
import type { Fields, TableShape } from './row-sql.js';

/**
 * The change's data with its key set from the wire id; undefined when the data names another key
 * than the wire id (withKey refuses such a change).
 */
export function keyedData(shape: TableShape, change: RowChange): Fields | undefined {
  const key = change.data[shape.keyField];
  if (key === undefined) return { ...change.data, [shape.keyField]: change.id };
  return key === change.id ? change.data : undefined;
}

/** The change's data with its key set from the wire id (and refused if they disagree). */
export function withKey(shape: TableShape, change: RowChange): Fields {
  const data = keyedData(shape, change);
  if (data) return data;
  const key = change.data[shape.keyField];
  throw new RowRejected(`data.${shape.keyField} "${String(key)}" is not the row id "${change.id}"`);
}

/** Whether every field of `data` already has that value in `local`. */
export function sameValues(local: Fields, data: Fields): boolean {
  for (const [k, v] of Object.entries(data)) {
    if (!(k in local)) continue; // a field this table does not store
    const stored = local[k];
    if (Object.is(stored, v)) continue;
    if (typeof v === 'boolean' && stored === (v ? 1 : 0)) continue;
    return false;
  }
  return true;
}
