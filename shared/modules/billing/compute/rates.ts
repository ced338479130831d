import type { Rates } from './types.js';

/**
 * Which rates apply to one carrier in one yard (docs/domain.md "Billing").
 *
 * - No carrier config (null): the carrier has no contract in the yard. It pays the yard's tariff
 *   per use (overageDailyRate, moveFee, gateFee, lateFee, noShowFee, and spaceMonthlyRate, which is
 *   moot), but it has
 *   booked no spaces and agreed to no minimum: bookedSpaces and minimumMonthly are 0. So every
 *   trailer of such a carrier present on a day is overage that day.
 * - A carrier config: each rate that is null (or absent) inherits the yard's, bookedSpaces and
 *   minimumMonthly included; a rate of 0 is an explicit 0 (a free move, no minimum) and overrides
 *   the yard's.
 * - A rate unset at both levels (no yard config, or a null/absent yard value) is 0.
 */

export type RateName = keyof Rates;

export const RATE_NAMES: readonly RateName[] = [
  'bookedSpaces',
  'spaceMonthlyRate',
  'overageDailyRate',
  'moveFee',
  'gateFee',
  'lateFee',
  'noShowFee',
  'minimumMonthly',
];

/** The rates that only a carrier with a config in the yard gets from the yard's defaults. */
const CONTRACT_ONLY: ReadonlySet<RateName> = new Set(['bookedSpaces', 'minimumMonthly']);

export type RateLevel = { [K in RateName]?: number | null };

export function resolveRates(yard: RateLevel | null, carrier: RateLevel | null): Rates {
  const rates = {} as Rates;
  for (const name of RATE_NAMES) {
    const yardValue = carrier === null && CONTRACT_ONLY.has(name) ? null : yard?.[name];
    const value = carrier?.[name] ?? yardValue ?? 0;
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`rate ${name} must be a non-negative integer, got ${value}`);
    }
    rates[name] = value;
  }
  return rates;
}
