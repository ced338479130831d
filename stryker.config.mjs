// Mutation testing of the core rules (`npm run mutate`; not in CI: it takes minutes).
// StrykerJS changes one operator or condition at a time in the files below and runs the unit tests
// against each change; a mutant that no test notices is a rule nothing checks.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts' },
  mutate: [
    'shared/modules/tasks/state-machine.ts',
    'shared/modules/tasks/completion.ts',
    'shared/modules/billing/bounds.ts',
    'shared/modules/billing/compute/compute.ts',
    'shared/modules/billing/compute/money.ts',
    'shared/modules/billing/compute/peaks.ts',
    'shared/modules/billing/compute/period.ts',
    'shared/modules/billing/compute/rates.ts',
    'shared/modules/billing/compute/rules.ts',
    'shared/modules/movements/unit-state.ts',
    'shared/modules/movements/visit-order.ts',
    'shared/sync/merge.ts',
    'shared/sync/hlc.ts',
    'shared/auth/principal.ts',
    'shared/net/outbound-policy.ts',
    // The sync trust rules (docs/sync.md "Trust", "Clock bounds", adoption) and the broker's topic rules.
    'shared/sync/site-trust.ts',
    'shared/sync/site-rules.ts',
    'shared/sync/clock-bounds.ts',
    'shared/sync/adoption.ts',
    'cloud/broker-auth.ts',
    // Dock appointments' booking rules (docs/domain.md "Booking rules") and the month's answer as bytes.
    'shared/modules/appointments/availability.ts',
    'shared/modules/appointments/door-load.ts',
    'shared/modules/appointments/availability-json.ts',
    'shared/sync/protocol.ts:36-92',
    // Idempotency keys, the request limits and the login limits (docs/api.md).
    'shared/http/idempotency.ts',
    'shared/http/idempotency-repo.ts',
    'shared/http/rate-limit.ts',
    'shared/modules/auth/login-limits.ts',
    'shared/modules/auth/login-devices.ts',
  ],
  reporters: ['clear-text', 'progress'],
  concurrency: 2,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
