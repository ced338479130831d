import { configDefaults, defineConfig } from 'vitest/config';

/** The unit tests of the pure rules, which `npm run mutate` (StrykerJS) runs against each mutant. */
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    // Compare generated files with their sources (Stryker's sandbox marks every file `@ts-nocheck`), or
    // read the repository's text rather than a rule a mutant could break (test/unit/docs/).
    exclude: [...configDefaults.exclude, 'test/unit/platform/api-types.test.ts', 'test/unit/docs/**'],
    environment: 'node',
    testTimeout: 20_000,
    pool: 'forks',
  },
});
