import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDatabase } from '../../../shared/db/database.js';
import { entityChecksums, entityChecksumsPostgres } from '../../../shared/sync/checksum.js';
import { seed } from '../../helpers/builders.js';
import { copyEdgeRows } from '../../helpers/edge-rows.js';
import { Client, query } from '../../helpers/http.js';
import { postgresAvailable } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The rows' checksums that tests compare across processes give the same figures for the same rows
 * on SQLite and on PostgreSQL, and a different one as soon as one field differs.
 */
describe.skipIf(!postgresAvailable())('entity checksums on both databases', () => {
  let lite: TestApp<AppDatabase>;
  let pg: TestApp<AppDatabase>;

  beforeAll(async () => {
    lite = await startTestApp({ env: { YARD_ROLE: 'cloud' } });
    pg = await startTestApp({ dialect: 'postgres', env: { YARD_ROLE: 'cloud' } });
  });
  afterAll(async () => {
    await lite?.close();
    await pg?.close();
  });

  const sums = () => {
    if (lite.db.dialect !== 'sqlite' || pg.db.dialect !== 'postgres') throw new Error('dialects');
    return Promise.all([entityChecksums(lite.db.sqlite), entityChecksumsPostgres(pg.db.pool)]);
  };

  it('agree on the same rows, and tell one changed field', async () => {
    const api = new Client(lite.url, lite.adminToken);
    const yard = await seed(api).yard();
    const carrier = await seed(api).carrier({ name: 'Überland Fracht', scac: 'UBLF' });
    await seed(api).location(yard.id, { name: 'Door 7', kind: 'door' });
    const trailer = await api.post('/api/trailer', { number: 'ÜB 77', carrierId: carrier.id });
    expect(trailer.status, trailer.text).toBe(201);
    // The PostgreSQL cloud gets the very same rows (its own admin user aside).
    await query(pg.db, 'DELETE FROM app_user');
    await copyEdgeRows(lite.db, pg.db, ['app_user', 'yard', 'location', 'carrier', 'trailer']);
    const [a, b] = await sums();
    expect(a.trailer).toMatchObject({ count: 1 });
    expect(b).toEqual(a);

    await query(pg.db, "UPDATE carrier SET name = 'Uberland Fracht' WHERE id = ?", carrier.id);
    const [c, d] = await sums();
    expect(d.carrier!.count).toBe(c.carrier!.count);
    expect(d.carrier!.checksum).not.toBe(c.carrier!.checksum);
    expect({ ...d, carrier: c.carrier }).toEqual(c);
  });
});
