import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSiteSenders } from '../../../cloud/sync/site-senders.js';
import { silentLogger } from '../../../shared/log.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../../helpers/postgres.js';
import { waitFor } from '../../helpers/wait-for.js';

/** Of several cloud nodes, one sends to each site at a time; a node that dies gives its sites up. */
describe.skipIf(!postgresAvailable())('site senders across cloud nodes (PostgreSQL advisory locks)', () => {
  let database: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 6 });
    pool.on('error', () => {}); // the test terminates a node's connection on purpose
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('one node per site; released or lost sites go to another node', async () => {
    const log = silentLogger();
    const a = new PostgresSiteSenders({ pool, log });
    const b = new PostgresSiteSenders({ pool, log });
    await a.start();
    await b.start();
    try {
      expect(await a.claim('s1')).toBe(true);
      expect(await a.claim('s1')).toBe(true); // still its own
      expect(await b.claim('s1')).toBe(false);
      expect(await b.claim('s2')).toBe(true);
      expect(await a.claim('s2')).toBe(false);
      // Claims racing for a free site: exactly one wins.
      const race = await Promise.all([a.claim('s3'), b.claim('s3')]);
      expect(race.filter(Boolean)).toHaveLength(1);

      await a.release('s1');
      expect(a.holds('s1')).toBe(false);
      expect(await b.claim('s1')).toBe(true);

      // Node B dies (its connection ends): A is told nothing, but claims B's sites on its next try.
      let lost = 0;
      b.onLost(() => lost++);
      // The session holding s2's lock is B's (objid: the key's low 32 bits, as an unsigned oid).
      const holder = await pool.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
           AND objid::bigint = (hashtext($1)::bigint & 4294967295)`,
        ['s2'],
      );
      expect(holder.rows).toHaveLength(1);
      const bPid = holder.rows[0]!.pid;
      await pool.query('SELECT pg_terminate_backend($1)', [bPid]);
      await waitFor(() => lost === 1, { timeoutMs: 5000, what: 'node B told it lost its sites' });
      expect(b.holds('s2')).toBe(false);
      expect(await a.claim('s2')).toBe(true);
      expect(await a.claim('s1')).toBe(true);
      // B comes back (a new connection on its next claim) and finds them taken.
      expect(await b.claim('s2')).toBe(false);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('once stopped, a late claim or release (a site status handled while stopping) holds no connection', async () => {
    const own = new pg.Pool({ connectionString: database.url, max: 2 });
    const senders = new PostgresSiteSenders({ pool: own, log: silentLogger() });
    await senders.start();
    expect(await senders.claim('s9')).toBe(true);
    await senders.stop();
    expect(await senders.claim('s9')).toBe(false);
    await senders.release('s9');
    await senders.releaseAll();
    // Nothing checked out: the pool ends (a process could not stop while it waited for one).
    expect(own.totalCount - own.idleCount).toBe(0);
    await own.end();
    // The lock went with the session: another node takes the site.
    const other = new PostgresSiteSenders({ pool, log: silentLogger() });
    try {
      expect(await other.claim('s9')).toBe(true);
    } finally {
      await other.stop();
    }
  });
});
