import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { loadConfig } from '../../../shared/config.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { JobLease, LeaseLost } from '../../../shared/db/job-lease.js';
import { openAppDatabase } from '../../../shared/db/open-app-database.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '../../helpers/postgres.js';

const TTL = 15_000;

/** One holder of a background job across nodes (shared/db/job-lease.ts), driven by a ManualClock. */
describe.each(TEST_DIALECTS)('a job lease on %s', (dialect) => {
  let db: AppDatabase;
  let postgres: TestDatabase | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'yard-job-lease-'));
  const clock = new ManualClock();
  let job = 0;
  let name = '';
  const lease = (owner: string) => new JobLease({ kysely: db.kysely, clock, name, owner, ttlMs: TTL });
  const row = () => db.kysely.selectFrom('jobLease').selectAll().where('name', '=', name).executeTakeFirst();
  /** A result write of the job: a sync_meta row, written only when the fence lets it through. */
  const writeUnder = (l: JobLease, epoch: number, value: string) =>
    db.kysely.transaction().execute(async (trx) => {
      await trx
        .insertInto('syncMeta')
        .values({ name: `${name}|${value}`, value })
        .execute();
      await l.fence(trx, epoch);
    });
  const written = async (value: string) =>
    (await db.kysely.selectFrom('syncMeta').select('value').where('name', '=', `${name}|${value}`).execute())
      .length;

  beforeAll(async () => {
    postgres = dialect === 'postgres' ? await createTestDatabase() : undefined;
    db = await openAppDatabase(
      loadConfig({
        YARD_ROLE: 'cloud',
        YARD_DATA_DIR: dir,
        ...(postgres ? { YARD_DATABASE_URL: postgres.url } : {}),
      }),
    );
  });

  afterAll(async () => {
    await db?.close();
    await postgres?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    name = `job-${++job}`;
  });

  it('is held by one owner at a time; renewing keeps the epoch and moves the expiry', async () => {
    const a = lease('node-a');
    const b = lease('node-b');
    expect(await a.hold()).toBe(1);
    expect(await b.hold()).toBeNull();
    clock.advance(TTL - 1);
    expect(await b.hold()).toBeNull();
    expect(await a.renew(1)).toBe(true);
    expect(await a.hold()).toBe(1);
    expect(await row()).toEqual({ name, owner: 'node-a', epoch: 1, expiresAt: clock.now() + TTL });
    clock.advance(TTL - 1);
    expect(await b.hold()).toBeNull();
  });

  it('passes to another owner with the next epoch once it expires; the old term can neither renew nor write', async () => {
    const a = lease('node-a');
    const b = lease('node-b');
    expect(await a.hold()).toBe(1);
    await writeUnder(a, 1, 'a-before');
    clock.advance(TTL);
    expect(await b.hold()).toBe(2);
    expect(await a.renew(1)).toBe(false);
    expect(await a.hold()).toBeNull();
    await expect(writeUnder(a, 1, 'a-late')).rejects.toBeInstanceOf(LeaseLost);
    await writeUnder(b, 2, 'b-now');
    expect([await written('a-before'), await written('a-late'), await written('b-now')]).toEqual([1, 0, 1]);
    expect(await row()).toMatchObject({ owner: 'node-b', epoch: 2 });
  });

  it('is free at once when released, and a new term starts even for the same owner', async () => {
    const a = lease('node-a');
    const b = lease('node-b');
    expect(await a.hold()).toBe(1);
    await b.release(); // not b's: changes nothing
    expect(await b.hold()).toBeNull();
    await a.release();
    expect(await b.hold()).toBe(2);
    await b.release();
    expect(await a.hold()).toBe(3);
    // An expired term nobody took is renewed in place, but a new hold after it is a new term.
    clock.advance(TTL + 1);
    expect(await a.renew(3)).toBe(true);
    clock.advance(TTL + 1);
    expect(await a.hold()).toBe(4);
    await expect(writeUnder(a, 3, 'old-term')).rejects.toBeInstanceOf(LeaseLost);
    expect(await written('old-term')).toBe(0);
  });

  it('of many nodes asking at once, exactly one holds it', async () => {
    const nodes = Array.from({ length: 8 }, (_, i) => lease(`node-${i}`));
    const epochs = await Promise.all(nodes.map((n) => n.hold()));
    expect(epochs.filter((e) => e !== null)).toEqual([1]);
    clock.advance(TTL);
    const again = await Promise.all(nodes.map((n) => n.hold()));
    expect(again.filter((e) => e !== null)).toEqual([2]);
  });

  it('cannot be taken while a fenced write of the holder is still open', async () => {
    const a = lease('node-a');
    const b = lease('node-b');
    expect(await a.hold()).toBe(1);
    let release: () => void = () => undefined;
    const open = new Promise<void>((r) => {
      release = r;
    });
    let fenced: () => void = () => undefined;
    const inside = new Promise<void>((r) => {
      fenced = r;
    });
    const write = db.kysely.transaction().execute(async (trx) => {
      await a.fence(trx, 1);
      fenced();
      await open;
      await trx
        .insertInto('syncMeta')
        .values({ name: `${name}|slow`, value: 'slow' })
        .execute();
    });
    await inside;
    clock.advance(TTL);
    let taken: number | null | undefined;
    const takeover = b.hold().then((e) => {
      taken = e;
    });
    await new Promise((r) => setTimeout(r, 150));
    expect(taken).toBeUndefined(); // waits for the holder's transaction
    release();
    await write;
    await takeover;
    expect(taken).toBe(2);
    expect(await written('slow')).toBe(1);
  });
});
