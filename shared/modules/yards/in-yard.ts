import type { Principal } from '../../auth/principal.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { ConflictError, NotFoundError } from '../../http/errors.js';

/**
 * The rules gates and locations share: each belongs to one yard (one of another yard is not
 * found), its name is unique in the yard ignoring case, and its lists page by lower(name), id.
 */

/**
 * What gates and locations ask of their yard's service: whether the caller may see the yard (403
 * outside its scope) and that it exists (404). YardService provides it; naming the two methods here
 * keeps the yard service -> gate/location service imports one way.
 */
export interface YardAccess {
  getVisibleRow(principal: Principal, yardId: string): Promise<unknown>;
  assertInScope(principal: Principal, yardId: string): void;
}

interface InYard {
  id: string;
  yardId: string;
  name: string;
}

/** The row, or 404 when it does not exist or belongs to another yard. */
export function ofYard<R extends InYard>(
  row: R | undefined,
  yardId: string,
  what: 'Gate' | 'Location',
  id: string,
): R {
  if (!row || row.yardId !== yardId) throw new NotFoundError(what, id);
  return row;
}

/** 409 duplicate when `existing` (the yard's gate or location of that name) is another record. */
export function assertNameFree(
  existing: InYard | undefined,
  what: 'gate' | 'location',
  exceptId?: string,
): void {
  if (existing && existing.id !== exceptId) {
    throw new ConflictError('duplicate', `The yard already has a ${what} named ${existing.name}.`, {
      existingId: existing.id,
    });
  }
}

/** The keyset position a list cursor holds: [lower(name), id]. */
export function afterName(cursor: string | undefined): [string, string] | undefined {
  return cursor ? (decodeCursor(cursor, 2) as [string, string]) : undefined;
}

/** A page of rows ordered by lower(name), id. */
export function pageByName<R extends InYard, T>(rows: R[], limit: number, out: (row: R) => T) {
  return toPage(rows, limit, out, (r) => [sqlLower(r.name), r.id]);
}

/**
 * lower() as SQL computes it for the list's order: ASCII letters only, on SQLite and on PostgreSQL's
 * "C" collation alike. The cursor must hold that key: JavaScript's toLowerCase also lowers Ä to ä,
 * which sorts after Ü, so the page after "Ärea" skipped "Übergabe".
 */
function sqlLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
