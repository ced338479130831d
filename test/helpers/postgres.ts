import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import {
  postgresRequired,
  REQUIRE_POSTGRES_ENV,
  TEST_PG_URL_ENV,
  type TestPostgresServer,
} from '../setup/postgres-global.js';

export type { TestPostgresServer };

export type TestDialect = 'sqlite' | 'postgres';

/** The test server, or null when there is none. */
export function testPostgresServer(): TestPostgresServer | null {
  const server = inject('yardTestPostgres');
  if (server === undefined && postgresRequired()) {
    // Not provided at all: this vitest config does not run the globalSetup; do not skip silently.
    throw new Error(
      `${REQUIRE_POSTGRES_ENV}=required but this vitest config has no test/setup/postgres-global.ts in globalSetup`,
    );
  }
  return server ?? null;
}

export function postgresAvailable(): boolean {
  return testPostgresServer() !== null;
}

/** The databases every "one suite, two databases" test runs on: `describe.each(TEST_DIALECTS)`. */
export const TEST_DIALECTS: TestDialect[] = postgresAvailable() ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  /** A postgres:// URL for pg.Pool({ connectionString }). */
  url: string;
  /** Ends the other sessions on it and drops it (safe to call twice). */
  drop(): Promise<void>;
}

/** A fresh, empty database on the test server, with a name of its own. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = testPostgresServer();
  if (!server) {
    throw new Error(
      `no test PostgreSQL server: install Debian's postgresql package (the tests start their own cluster) or set ${TEST_PG_URL_ENV}`,
    );
  }
  const name = `yard_t_${randomBytes(6).toString('hex')}`;
  // template0, not template1: nobody can connect to template0, so test files creating databases in
  // parallel never meet "source database is being accessed by other users". The C collation sorts
  // text bytewise, as SQLite does, so both dialects of a suite see the same order.
  await asAdmin(server.adminUrl, (c) =>
    c.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`),
  );
  let dropped = false;
  return {
    url: databaseUrl(server.adminUrl, name),
    async drop() {
      if (dropped) return;
      await dropDatabase(server.adminUrl, name);
      dropped = true;
    },
  };
}

/** The admin URL with another database: same host, user, password and options. */
export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await asAdmin(adminUrl, async (c) => {
    try {
      // First stop new connections (a pool would reconnect between terminate and drop), then end the
      // open ones; DROP DATABASE waits a few seconds for terminated sessions to exit.
      await c.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
    } catch (e) {
      if ((e as { code?: string }).code === '3D000') return; // already gone
      throw e;
    }
    await c.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    await c.query(`DROP DATABASE ${name}`);
  });
}

async function asAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
