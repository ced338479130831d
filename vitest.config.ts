import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One PostgreSQL server for the run (its own cluster, or YARD_TEST_PG_URL) for the two-database suites.
    globalSetup: ['test/setup/postgres-global.ts'],
  },
});
