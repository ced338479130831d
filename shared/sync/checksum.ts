import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { LOCAL_SECRETS, SYNCED_ENTITIES, type SyncedEntity, toSnake } from './entities.js';

const MASK = (1n << 64n) - 1n;

export type EntityChecksums = Record<string, { count: number; checksum: string }>;

/** Which rows count (all by default): e.g. only those of some yards, for one site's share. */
export type ChecksumFilter = (entity: SyncedEntity, columns: readonly string[]) => string | undefined;

/**
 * Per synced entity: the row count and an order-independent checksum of the rows' synced content
 * (the sum, modulo 2^64, of a SHA-256 prefix of each row). Used by tests and benchmarks to prove
 * that both sides hold the same rows, on either database (a cloud on PostgreSQL against its
 * edges' SQLite files: values come back as the same JSON from both, bigints as numbers).
 *
 * Left out, because they are local to each side and never synced:
 * - generated columns (trailer.api_json, a rendered read model);
 * - site-scoped settings (they stay at their edge, routing.ts);
 * - secrets that stay on their side (entities.ts LOCAL_SECRETS: ONVIF passwords).
 * Everything else counts, hlc, field_hlc and version included: after a merge both sides must hold
 * the very same row. (Session locations are pruned by each side on its own schedule: compare them
 * before a retention prune.)
 */
export function entityChecksums(sqlite: Database.Database, filter?: ChecksumFilter): EntityChecksums {
  const out: EntityChecksums = {};
  for (const entity of SYNCED_ENTITIES) {
    const table = toSnake(entity.table);
    const stored = (
      sqlite.prepare(`PRAGMA table_xinfo("${table}")`).all() as Array<{ name: string; hidden: number }>
    )
      .filter((c) => c.hidden === 0)
      .map((c) => c.name);
    const columns = checksummed(entity, stored);
    const rows = sqlite
      .prepare(selectRows(entity, columns, filter))
      .raw()
      .iterate() as Iterable<unknown[]>;
    out[entity.entity] = sum(rows);
  }
  return out;
}

/** The same on PostgreSQL (the cloud's database in production); `pool` as openPostgres makes it (its type parsers give numbers, as SQLite does). */
export async function entityChecksumsPostgres(
  pool: pg.Pool,
  filter?: ChecksumFilter,
): Promise<EntityChecksums> {
  const out: EntityChecksums = {};
  for (const entity of SYNCED_ENTITIES) {
    const table = toSnake(entity.table);
    const stored = await pool.query<{ name: string }>(
      `SELECT column_name AS name FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER'`,
      [table],
    );
    const columns = checksummed(
      entity,
      stored.rows.map((r) => r.name),
    );
    const rows = await pool.query({ text: selectRows(entity, columns, filter), rowMode: 'array' });
    out[entity.entity] = sum(rows.rows as unknown[][]);
  }
  return out;
}

/** The columns that count, in one order on both databases. */
function checksummed(entity: SyncedEntity, stored: readonly string[]): string[] {
  return stored
    .filter((name) => !(LOCAL_SECRETS[entity.entity] ?? []).some((f) => toSnake(f) === name))
    .sort();
}

function selectRows(
  entity: SyncedEntity,
  columns: readonly string[],
  filter: ChecksumFilter | undefined,
): string {
  const conditions = [
    ...(entity.entity === 'setting' ? ["scope <> 'site'"] : []),
    ...[filter?.(entity, columns)].filter((c): c is string => c !== undefined),
  ];
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  return `SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM "${toSnake(entity.table)}"${where}`;
}

function sum(rows: Iterable<unknown[]>): { count: number; checksum: string } {
  let count = 0;
  let total = 0n;
  for (const values of rows) {
    count += 1;
    const digest = createHash('sha256').update(JSON.stringify(values)).digest();
    total = (total + digest.readBigUInt64BE(0)) & MASK;
  }
  return { count, checksum: total.toString(16).padStart(16, '0') };
}
