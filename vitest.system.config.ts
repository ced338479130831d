import { defineConfig } from 'vitest/config';

// System tests need Debian packages (mosquitto, socat, chromium) that .ci/run installs.
export default defineConfig({
  test: {
    include: ['test/system/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One PostgreSQL server for the run (its own cluster, or YARD_TEST_PG_URL) for the two-database suites.
    globalSetup: ['test/setup/postgres-global.ts'],
    fileParallelism: false,
  },
});
