import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../shared/config.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { openAppDatabase } from '../../../shared/db/open-app-database.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../../helpers/postgres.js';

/**
 * PostgreSQL only: the claim behind the send side on PostgreSQL (shared/sync/send-store.ts) is that
 * change_log seqs become visible in seq order, because every statement inserting into change_log
 * takes one transaction advisory lock before the identity default takes a seq (the trigger
 * change_log_seq_order of migration 0001's twin). A sender that reads seq s and is acknowledged up
 * to s would otherwise lose every lower seq that commits later.
 *
 * Many writers on their own connections insert rows (one or several per statement, one or two
 * statements per transaction), hold their transaction open a random moment after taking their seqs,
 * and commit or roll back; a reader reads the log over and over. Afterwards, for every read: every
 * seq that ever committed and is lower than the highest seq the read saw must be in that read.
 * The same run with the trigger disabled shows the check catches the failure it is about.
 */
const WRITERS = 8;
const TRANSACTIONS = 40;

interface Run {
  committed: Set<number>;
  reads: number[][];
}

async function race(url: string): Promise<Run> {
  const committed = new Set<number>();
  const reads: number[][] = [];
  let writing = true;
  const reader = new pg.Client({ connectionString: url });
  await reader.connect();
  const readLoop = (async () => {
    while (writing) {
      const { rows } = await reader.query<{ seq: string }>('SELECT seq FROM change_log ORDER BY seq');
      reads.push(rows.map((r) => Number(r.seq)));
    }
  })();
  const writer = async (w: number) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      for (let t = 0; t < TRANSACTIONS; t++) {
        const seqs: number[] = [];
        await c.query('BEGIN');
        const statements = 1 + ((w + t) % 2);
        for (let s = 0; s < statements; s++) {
          const n = 1 + ((w * 7 + t + s) % 3);
          const { rows } = await c.query<{ seq: string }>(
            `INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data)
             SELECT 'site-' || $1::text, 'carrier', 'c' || g, 'upsert', '0000000000000-0000-w', 'cloud', 1, '{}'
             FROM generate_series(1, $2::int) g RETURNING seq`,
            [String(w), n],
          );
          seqs.push(...rows.map((r) => Number(r.seq)));
          // Hold the seqs a little while: without the lock, others take and commit later seqs.
          await c.query('SELECT pg_sleep($1::float8)', [Math.random() * 0.006]);
        }
        if ((w + t) % 5 === 0) {
          await c.query('ROLLBACK');
        } else {
          await c.query('COMMIT');
          for (const s of seqs) committed.add(s);
        }
      }
    } finally {
      await c.end();
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
  writing = false;
  await readLoop;
  await reader.end();
  return { committed, reads };
}

/** Reads that saw a seq while a lower seq that later committed was not yet visible. */
function violations(run: Run): number {
  const all = [...run.committed].sort((a, b) => a - b);
  let bad = 0;
  for (const read of run.reads) {
    if (read.length === 0) continue;
    const seen = new Set(read);
    const top = read[read.length - 1]!;
    if (all.some((s) => s < top && !seen.has(s))) bad += 1;
  }
  return bad;
}

describe.skipIf(!postgresAvailable())('change_log seq order on PostgreSQL', () => {
  let db: AppDatabase;
  let postgres: TestDatabase;
  const dir = mkdtempSync(join(tmpdir(), 'yard-log-order-'));

  beforeAll(async () => {
    postgres = await createTestDatabase();
    // Opening migrates: the trigger under test is the migration's.
    db = await openAppDatabase(
      loadConfig({ YARD_ROLE: 'cloud', YARD_DATA_DIR: dir, YARD_DATABASE_URL: postgres.url }),
    );
  });

  afterAll(async () => {
    await db?.close();
    await postgres?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a reader that sees seq s already sees every lower seq that ever commits', async () => {
    if (db.dialect !== 'postgres') throw new Error('PostgreSQL only');
    const run = await race(postgres.url);
    expect(run.committed.size).toBeGreaterThan(WRITERS * TRANSACTIONS);
    expect(run.reads.length).toBeGreaterThan(20);
    expect(violations(run)).toBe(0);
    // Rolled-back transactions left holes; every committed row is there in the end.
    const { rows } = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM change_log');
    expect(Number(rows[0]!.n)).toBe(run.committed.size);
  });

  it('without the trigger the same race shows rows becoming visible out of seq order', async () => {
    if (db.dialect !== 'postgres') throw new Error('PostgreSQL only');
    await db.pool.query('ALTER TABLE change_log DISABLE TRIGGER change_log_seq_order');
    try {
      const run = await race(postgres.url);
      expect(violations(run)).toBeGreaterThan(0);
    } finally {
      await db.pool.query('ALTER TABLE change_log ENABLE TRIGGER change_log_seq_order');
    }
  });
});
