import { z } from '../../../http/zod.js';
import { BOOKED_SPACES_MAX, MINIMUM_MONTHLY_MAX, RATE_MAX, TAX_RATE_BP_MAX } from '../bounds.js';

/**
 * The fields of the billing configs, each with its bounds and its words for a bad value
 * (DOMAIN.md "Billing"): the currency, money in minor units, booked spaces, tax, grace and the
 * rates. The yard and carrier config schemas (schema.ts) are built from them.
 */

/** The ISO 4217 codes the runtime knows (Node's ICU data): real currencies, no test codes like XXX. */
const KNOWN_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export const Currency = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code: 3 upper-case letters, e.g. USD')
  .refine((c) => KNOWN_CURRENCIES.has(c), 'not a known ISO 4217 currency')
  .openapi({ description: 'ISO 4217 currency of every amount of the yard', example: 'USD' });

/**
 * An amount in integer minor units of the yard's currency (cents for USD, yen for JPY), at most
 * `max`: the bounds (../bounds.ts) keep every line and total of an invoice a safe integer.
 */
function minorUnits(max: number) {
  return z
    .number({ error: 'must be a number' })
    .int('must be an integer of minor units (e.g. cents), not a decimal')
    .min(0, 'must not be negative')
    .max(max, `at most ${max.toLocaleString('en-US')} minor units`);
}

function money(description: string, example: number, max = RATE_MAX) {
  return minorUnits(max).openapi({
    description: `${description}, in integer minor units of the yard's currency (e.g. cents for USD), at most ${max}`,
    example,
  });
}

export const BookedSpaces = z
  .number({ error: 'must be a number' })
  .int('must be a whole number of spaces')
  .min(0, 'must not be negative')
  .max(BOOKED_SPACES_MAX, `at most ${BOOKED_SPACES_MAX.toLocaleString('en-US')} spaces`)
  .openapi({ description: `trailer spaces the carrier reserves, at most ${BOOKED_SPACES_MAX}`, example: 10 });

export const TaxRateBp = z
  .number({ error: 'must be a number' })
  .int('must be whole basis points (825 = 8.25 %)')
  .min(0, 'must not be negative')
  .max(TAX_RATE_BP_MAX, 'at most 10000 (100 %)')
  .openapi({ description: 'tax rate in basis points: 825 = 8.25 %', example: 825 });

export const GraceMinutes = z
  .number({ error: 'must be a number' })
  .int('must be whole minutes')
  .min(0, 'must not be negative')
  .max(1440, 'at most 1440 (a day)')
  .openapi({ description: 'a visit shorter than this is never present (counts for no day)', example: 30 });

export const Text = (max: number) => z.string().trim().min(1).max(max);

/** The rates a yard sets for every carrier and a carrier config may override (DOMAIN.md "Billing"). */
export const RATE_FIELDS = {
  bookedSpaces: BookedSpaces,
  spaceMonthlyRate: money('per booked space per period (month)', 15_000),
  overageDailyRate: money('per trailer-day above bookedSpaces', 2_500),
  moveFee: money('per completed move task (move, pull to door, return to spot, shunt)', 1_500),
  gateFee: money('per gate check-in of the carrier’s trailers', 500),
  lateFee: money('per appointment of the carrier that arrived late (not counted towards the minimum)', 5_000),
  noShowFee: money('per appointment of the carrier marked no-show (not counted towards the minimum)', 10_000),
  minimumMonthly: money('minimum of the period’s charges before adjustments', 50_000, MINIMUM_MONTHLY_MAX),
};

export type RateName = keyof typeof RATE_FIELDS;
export const RATE_NAMES = Object.keys(RATE_FIELDS) as RateName[];
