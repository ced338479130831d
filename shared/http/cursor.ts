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

type SortKey = ReadonlyArray<string | number>;

/**
 * A page of a list that is computed or fetched whole (driver availability, a provider's cameras):
 * the same keyset cursor as the SQL lists, over `keyOf`, which must be unique per item and gives
 * the order (each position holds one type). The index in `all` is a key only for a fixed list.
 */
export function pageInMemory<T>(
  all: readonly T[],
  query: { limit: number; cursor?: string | undefined },
  keyOf: (item: T, index: number) => SortKey,
): { items: T[]; nextCursor: string | null } {
  const keyed = all.map((item, index) => ({ item, key: keyOf(item, index) }));
  if (keyed.length === 0) return { items: [], nextCursor: null }; // (a list that emptied between pages)
  keyed.sort((a, b) => compareKeys(a.key, b.key));
  const after = query.cursor ? decodeCursor(query.cursor, keyed[0]!.key.length) : undefined;
  const rest = after ? keyed.filter((k) => compareKeys(k.key, after as SortKey) > 0) : keyed;
  return toPage(
    rest.slice(0, query.limit + 1),
    query.limit,
    (k) => k.item,
    (k) => k.key,
  );
}

function compareKeys(a: SortKey, b: SortKey): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}
