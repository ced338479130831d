import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { LOCAL_SECRETS, SYNCED_ENTITIES, toSnake } from './entities.js';

const MASK = (1n << 64n) - 1n;

/**
 * Per synced entity: the row count and an order-independent checksum of the rows' synced content
 * (the sum, modulo 2^64, of a SHA-256 prefix of each row). Used by tests and benchmarks to prove
 * that both sides hold the same rows.
 *
 * Left out, because they are local to each side and never synced:
 * - generated columns (trailer.api_json, a rendered read model);
 * - site-scoped settings (they stay at their edge, routing.ts);
 * - secrets that stay on their side (entities.ts LOCAL_SECRETS: ONVIF passwords).
 * Everything else counts, hlc, field_hlc and version included: after a merge both sides must hold
 * the very same row. (Session locations are pruned by each side on its own schedule: compare them
 * before a retention prune.)
 */
export function entityChecksums(
  sqlite: Database.Database,
): Record<string, { count: number; checksum: string }> {
  const out: Record<string, { count: number; checksum: string }> = {};
  for (const entity of SYNCED_ENTITIES) {
    const table = toSnake(entity.table);
    const columns = (
      sqlite.prepare(`PRAGMA table_xinfo("${table}")`).all() as Array<{ name: string; hidden: number }>
    )
      .filter((c) => c.hidden === 0)
      .map((c) => c.name)
      .filter((name) => !(LOCAL_SECRETS[entity.entity] ?? []).some((f) => toSnake(f) === name))
      .sort();
    const where = entity.entity === 'setting' ? " WHERE scope <> 'site'" : '';
    const stmt = sqlite
      .prepare(`SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM "${table}"${where}`)
      .raw();
    let count = 0;
    let sum = 0n;
    for (const values of stmt.iterate() as Iterable<unknown[]>) {
      count += 1;
      const digest = createHash('sha256').update(JSON.stringify(values)).digest();
      sum = (sum + digest.readBigUInt64BE(0)) & MASK;
    }
    out[entity.entity] = { count, checksum: sum.toString(16).padStart(16, '0') };
  }
  return out;
}
