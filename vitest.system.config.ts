import { defineConfig } from 'vitest/config';

// System tests need Debian packages (mosquitto, socat, chromium) that .ci/run installs.
export default defineConfig({
  test: {
    include: ['test/system/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
