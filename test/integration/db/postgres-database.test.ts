import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../shared/config.js';
import { type PostgresDatabase, SyncedWriteRefused } from '../../../shared/db/database.js';
import { SCHEMA_VERSION } from '../../../shared/db/migrate.js';
import { openAppDatabase } from '../../../shared/db/open-app-database.js';
import { openPostgres } from '../../../shared/db/postgres-database.js';
import { ReadPool } from '../../../shared/db/read-pool.js';
import { createTestDatabase, postgresAvailable } from '../../helpers/postgres.js';

/** The cloud's database on PostgreSQL: opened and migrated as the cloud opens it, queried through Kysely. */
describe.skipIf(!postgresAvailable())('the cloud database on PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: PostgresDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    const opened = await openAppDatabase(loadConfig({ YARD_ROLE: 'cloud', YARD_DATABASE_URL: database.url }));
    if (opened.dialect !== 'postgres') throw new Error('YARD_DATABASE_URL did not open PostgreSQL');
    db = opened;
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('is migrated to the schema this program knows', async () => {
    const row = await sql<{ v: number }>`SELECT max(version) AS v FROM schema_migration`.execute(db.kysely);
    expect(row.rows[0]?.v).toBe(SCHEMA_VERSION);
  });

  it('reads and writes through Kysely with camelCase names; bigints come back as numbers', async () => {
    await db.kysely
      .insertInto('syncCursor')
      .values({ peer: 'site-a', ackedSeq: 1_764_115_200_000, appliedRemoteSeq: 3 })
      .execute();
    const row = await db.kysely
      .selectFrom('syncCursor')
      .select(['peer', 'ackedSeq', 'appliedRemoteSeq'])
      .where('peer', '=', 'site-a')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ peer: 'site-a', ackedSeq: 1_764_115_200_000, appliedRemoteSeq: 3 });
    const sum = await db.kysely
      .selectFrom('syncCursor')
      .select((eb) => [eb.fn.sum<number>('ackedSeq').as('total'), eb.fn.countAll<number>().as('n')])
      .executeTakeFirstOrThrow();
    expect(sum).toEqual({ total: 1_764_115_200_000, n: 1 });
  });

  it('refuses a write to a synced table outside ChangeCapture, as on SQLite', async () => {
    await expect(
      db.kysely
        .insertInto('carrier')
        .values({ id: 'c1', name: 'X' } as never)
        .execute(),
    ).rejects.toBeInstanceOf(SyncedWriteRefused);
  });

  it('the read pool reads through the same pool (no worker threads: pg does not block the event loop)', async () => {
    const reads = new ReadPool({ db, size: 4 });
    await reads.start();
    expect(reads.workers).toBe(0);
    expect(reads.kysely).toBe(db.kysely);
    const seen: string[] = [];
    const stop = reads.onQuery((text) => seen.push(text));
    await reads.kysely.selectFrom('site').select('id').execute();
    stop();
    expect(seen.some((text) => text.includes('"site"'))).toBe(true);
    await reads.stop();
  });

  it('a statement past the timeout is cancelled by the server', async () => {
    const short = openPostgres({ url: database.url, poolMax: 2, statementTimeoutMs: 200 });
    try {
      await expect(sql`SELECT pg_sleep(2)`.execute(short.kysely)).rejects.toMatchObject({ code: '57014' });
    } finally {
      await short.close();
    }
  });

  it('a second start finds nothing to migrate', async () => {
    const again = await openAppDatabase(loadConfig({ YARD_ROLE: 'cloud', YARD_DATABASE_URL: database.url }));
    try {
      const rows = await sql<{ n: number }>`SELECT count(*) AS n FROM schema_migration`.execute(again.kysely);
      expect(rows.rows[0]?.n).toBe(SCHEMA_VERSION);
    } finally {
      await again.close();
    }
  });
});
