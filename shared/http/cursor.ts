import { BadRequestError } from './errors.js';

/**
 * Opaque keyset cursors: the sort values of the last row of a page, base64url JSON.
 * Keyset (not offset) paging stays fast with years of history.
 */
export function encodeCursor(values: ReadonlyArray<string | number | null>): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

export function decodeCursor(cursor: string, arity: number): Array<string | number | null> {
  try {
    const values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(values) &&
      values.length === arity &&
      values.every((v) => v === null || typeof v === 'string' || typeof v === 'number')
    ) {
      return values;
    }
  } catch {
    // fall through
  }
  throw new BadRequestError(
    'invalid-cursor',
    'The cursor is not one this API issued for this list. Start again without it.',
  );
}

/**
 * Given rows fetched with `limit + 1`, the page and its next cursor.
 */
export function toPage<R, T>(
  rows: R[],
  limit: number,
  map: (row: R) => T,
  cursorOf: (row: R) => ReadonlyArray<string | number | null>,
): { items: T[]; nextCursor: string | null } {
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  const last = pageRows.at(-1);
  return {
    items: pageRows.map(map),
    nextCursor: more && last !== undefined ? encodeCursor(cursorOf(last)) : null,
  };
}
