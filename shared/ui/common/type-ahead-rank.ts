/**
 * How the type-ahead orders what the server found for what the clerk typed. The server's search is
 * "contains"; the clerk expects the best match on top: exact, then starts with, then a word starts
 * with, then contains anywhere. Case never matters; for unit numbers (trailers, plates) spaces and
 * dashes do not either, so "prfu482113" finds "PRFU 482113".
 */
export const MATCH = { exact: 4, prefix: 3, wordPrefix: 2, contains: 1, none: 0 } as const;
export type MatchScore = (typeof MATCH)[keyof typeof MATCH];

/** Lower case, single spaces, trimmed: for names. */
export function normalText(s: string): string {
  return s.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Lower case without spaces, dashes, dots or slashes: for trailer numbers, plates, licences. */
export function compactCode(s: string): string {
  return s.replace(/[\s\-./]/g, '').toLowerCase();
}

/** How well one text matches the query (both compared as `normal` makes them). */
export function matchScore(
  text: string,
  query: string,
  normal: (s: string) => string = normalText,
): MatchScore {
  const t = normal(text);
  const q = normal(query);
  if (!q || !t) return MATCH.none;
  if (t === q) return MATCH.exact;
  if (t.startsWith(q)) return MATCH.prefix;
  if (t.split(/[\s\-./]+/).some((word) => word.startsWith(q))) return MATCH.wordPrefix;
  if (t.includes(q)) return MATCH.contains;
  return MATCH.none;
}

/** One field of a candidate to match, with how to normalise it and a bonus for a decisive match. */
export interface RankField {
  text: string | null | undefined;
  normal?: (s: string) => string;
  /** Added to an exact match of this field, so it beats every other candidate (a carrier's SCAC). */
  exactBonus?: number;
}

/**
 * The candidates that match the query, best first: by the best score over each candidate's fields,
 * ties kept in the server's order (stable). A candidate matching nothing is dropped.
 */
export function rank<T>(items: readonly T[], query: string, fields: (item: T) => RankField[]): T[] {
  const scored: { item: T; score: number; index: number }[] = [];
  items.forEach((item, index) => {
    let best = 0;
    for (const f of fields(item)) {
      if (!f.text) continue;
      const s = matchScore(f.text, query, f.normal);
      const score = s === MATCH.exact ? s + (f.exactBonus ?? 0) : s;
      if (score > best) best = score;
    }
    if (best > 0) scored.push({ item, score: best, index });
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.map((s) => s.item);
}

/** Trailers by number (spaces and case ignored) or plate. */
export function rankTrailers<T extends { number: string; plate?: string | null }>(
  items: readonly T[],
  q: string,
): T[] {
  return rank(items, q, (t) => [
    { text: t.number, normal: compactCode },
    { text: t.plate, normal: compactCode },
  ]);
}

/** Carriers by name or SCAC; an exact SCAC comes first ("LSLG" is that carrier, whatever the names say). */
export function rankCarriers<T extends { name: string; scac?: string | null }>(
  items: readonly T[],
  q: string,
): T[] {
  return rank(items, q, (c) => [{ text: c.scac, normal: compactCode, exactBonus: 10 }, { text: c.name }]);
}

/** Drivers by full name (either order), phone or licence number. */
export function rankDrivers<
  T extends { firstName: string; lastName: string; phone?: string | null; licenseNumber?: string | null },
>(items: readonly T[], q: string): T[] {
  return rank(items, q, (d) => [
    { text: `${d.firstName} ${d.lastName}` },
    { text: `${d.lastName} ${d.firstName}` },
    { text: d.phone, normal: (s) => s.replace(/[^\d]/g, '') },
    { text: d.licenseNumber, normal: compactCode },
  ]);
}
