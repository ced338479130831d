import { defineConfig } from 'vitest/config';

/** The unit tests of the pure rules, which `npm run mutate` (StrykerJS) runs against each mutant. */
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    pool: 'forks',
  },
});
