import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { DEBIAN_POSTGRES_ROOT, PostgresCluster } from '../helpers/postgres-cluster.js';

/**
 * The test PostgreSQL server as the test files receive it (inject('yardTestPostgres'); read it through
 * test/helpers/postgres.ts): its own throwaway cluster, or the operator's server from YARD_TEST_PG_URL;
 * null when there is none (the PostgreSQL variants of the suites are skipped).
 */
export interface TestPostgresServer {
  /** A superuser URL; test databases are made and dropped through it. */
  adminUrl: string;
  /** True when this setup started the cluster (on loopback), false for YARD_TEST_PG_URL. */
  ownCluster: boolean;
}

declare module 'vitest' {
  export interface ProvidedContext {
    yardTestPostgres: TestPostgresServer | null;
  }
}

/** Set to `required` (CI) to fail the run when no PostgreSQL is available instead of skipping. */
export const REQUIRE_POSTGRES_ENV = 'YARD_TEST_POSTGRES';
/** An operator's own PostgreSQL server (a superuser URL) to use instead of starting a cluster. */
export const TEST_PG_URL_ENV = 'YARD_TEST_PG_URL';

export function postgresRequired(): boolean {
  return process.env[REQUIRE_POSTGRES_ENV] === 'required';
}

/**
 * vitest globalSetup: one PostgreSQL server for the whole run, handed to the test files (each in its
 * own fork) with provide/inject; each test makes its own databases on it (test/helpers/postgres.ts).
 * YARD_TEST_PG_URL (a superuser URL) uses an operator's server instead of starting one.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const operatorUrl = process.env[TEST_PG_URL_ENV];
  if (operatorUrl) {
    await checkReachable(operatorUrl);
    console.log(`PostgreSQL for tests: ${TEST_PG_URL_ENV} (${redact(operatorUrl)})`);
    provide(project, { adminUrl: operatorUrl, ownCluster: false });
    return undefined;
  }
  const binaries = PostgresCluster.findBinaries();
  if (!binaries) {
    const missing = `no PostgreSQL server binaries under ${DEBIAN_POSTGRES_ROOT}/*/bin`;
    if (postgresRequired()) {
      throw new Error(
        `${REQUIRE_POSTGRES_ENV}=required but ${missing}: install Debian's postgresql package (apt-get install postgresql) or set ${TEST_PG_URL_ENV}`,
      );
    }
    console.log(`PostgreSQL variants skipped: ${missing} (install Debian's postgresql package)`);
    provide(project, null);
    return undefined;
  }
  const cluster = await PostgresCluster.start({ binaries });
  console.log(`PostgreSQL ${cluster.version} for tests: ${cluster.adminUrl} (data in ${cluster.dir})`);
  provide(project, { adminUrl: cluster.adminUrl, ownCluster: true });
  return () => cluster.stop();
}

function provide(project: TestProject, server: TestPostgresServer | null): void {
  project.provide('yardTestPostgres', server);
}

async function checkReachable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (e) {
    throw new Error(`${TEST_PG_URL_ENV} (${redact(url)}) is not reachable: ${(e as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}
