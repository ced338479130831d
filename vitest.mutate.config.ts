import { defineConfig } from 'vitest/config';

/** The unit tests of the pure rules, which `npm run mutate` (StrykerJS) runs against each mutant. */
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    // Compares a generated file byte for byte, which StrykerJS's sandbox marks with @ts-nocheck;
    // it checks no rule (it builds the whole app's OpenAPI document) and would run for many mutants.
    exclude: ['test/unit/platform/api-types.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    pool: 'forks',
  },
});
