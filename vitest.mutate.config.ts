import { configDefaults, defineConfig } from 'vitest/config';

/** The unit tests of the pure rules, which `npm run mutate` (StrykerJS) runs against each mutant. */
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    // Compare generated files with their sources: Stryker's sandbox marks every file `@ts-nocheck`.
    exclude: [
      ...configDefaults.exclude,
      'test/unit/platform/api-types.test.ts',
      'test/unit/docs/module-map.test.ts',
    ],
    environment: 'node',
    testTimeout: 20_000,
    pool: 'forks',
  },
});
