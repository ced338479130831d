import { configDefaults, defineConfig } from 'vitest/config';

/** The unit tests of the pure rules, which `npm run mutate` (StrykerJS) runs against each mutant. */
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    // Compares a generated file with its source: Stryker's sandbox marks every file `@ts-nocheck`.
    exclude: [...configDefaults.exclude, 'test/unit/platform/api-types.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    pool: 'forks',
  },
});
