/**
 * The SQLSTATE of an error PostgreSQL answered (node-postgres' DatabaseError: a five-character
 * `code` and a `severity`), or undefined for anything else. Recognised by its shape rather than by
 * `instanceof pg.DatabaseError`, so the modules that ask (the sync applier, the error handler) do
 * not load node-postgres into an edge, which never opens PostgreSQL (docs/performance.md "Edge
 * memory").
 */
export function postgresErrorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; severity?: unknown } | null | undefined;
  if (typeof e?.code !== 'string' || typeof e.severity !== 'string') return undefined;
  return /^[0-9A-Z]{5}$/.test(e.code) ? e.code : undefined;
}
