/**
 * The bounds of what a user enters for billing (docs/domain.md "Billing"): the one home of them,
 * used by the config and adjustment schemas (400 on the field) and the adjustment service (the
 * count per period). They are far beyond any real yard, and small enough that no invoice built from
 * values within them can leave the safe integers (|x| <= 2^53 - 1 = 9,007,199,254,740,991, "MAX"):
 * an overflow is refused where a value is entered, never met at invoicing.
 *
 * Entered (checked at entry):
 *   B  = BOOKED_SPACES_MAX        = 100,000 spaces
 *   R  = RATE_MAX                 = 10^9 minor units per unit (space, trailer-day, move, check-in):
 *                                   10,000,000.00 USD, or 10^7 of a currency with two decimals
 *                                   whose unit is worth little (IDR, COP)
 *   M  = MINIMUM_MONTHLY_MAX      = 10^12 minor units (a minimum is never multiplied)
 *   A  = ADJUSTMENT_MAX           = 10^12 minor units per adjustment, either sign
 *   K  = ADJUSTMENTS_PER_PERIOD_MAX = 100 adjustments per yard, carrier and period
 *   T  = taxRateBp <= 10,000 (100 %), config/schema.ts
 * Activity (recorded at the gate and by drivers, not entered for billing): per carrier, yard and
 * period at most
 *   P  = ACTIVITY.peakTrailers    = 100,000 of its trailers present at one instant
 *   E  = ACTIVITY.events          = 500,000 moves, and as many check-ins (one every 5 s, day and
 *                                   night, for a whole month)
 *   D  = 31 days in a period.
 *   N  = ACTIVITY.appointments    = 50,000 appointments (one every 54 s for a whole month); each
 *                                   is late or no-show at most, never both
 *
 * Worst case of every amount (each a non-negative bound of its magnitude):
 *   SPACE      <= B x R            = 10^5 x 10^9         = 1.0 x 10^14
 *   overage(d) x rate <= P x R     = 10^5 x 10^9         = 1.0 x 10^14 (one day)
 *   OVERAGE    <= D x P x R        = 31 x 10^14          = 3.1 x 10^15
 *   MOVES      <= E x R            = 5 x 10^5 x 10^9     = 5.0 x 10^14
 *   GATE       <= E x R                                  = 5.0 x 10^14
 *   charges = SPACE + OVERAGE + MOVES + GATE             <= 4.2 x 10^15
 *   charges + MINIMUM = max(charges, minimumMonthly) <= max(4.2 x 10^15, M) = 4.2 x 10^15
 *   LATE + NO_SHOW <= N x R       = 5 x 10^4 x 10^9     = 5.0 x 10^13 (not counted by MINIMUM)
 *   |ADJUSTMENTS| <= K x A        = 100 x 10^12         = 1.0 x 10^14
 *   |subtotal| <= 4.2 x 10^15 + 5.0 x 10^13 + 1.0 x 10^14 = 4.35 x 10^15
 *   |tax| = round half up(|subtotal| x T / 10^4) <= |subtotal| (T <= 10^4) <= 4.35 x 10^15
 *   |total| <= |subtotal| + |tax|                       <= 8.7 x 10^15 < MAX (9.007 x 10^15)
 * Every partial sum is below its total's bound, and the tax's intermediate product (|subtotal| x T
 * <= 4.35 x 10^19) is formed in BigInt (compute/money.ts). test/unit/billing/bounds.test.ts computes
 * this bound from the constants below and runs the computation at it; an activity beyond ACTIVITY
 * (no yard's) is still checked amount by amount by compute/money.ts rather than billed rounded.
 */

export const BOOKED_SPACES_MAX = 100_000;
export const RATE_MAX = 1_000_000_000;
export const MINIMUM_MONTHLY_MAX = 1_000_000_000_000;
export const ADJUSTMENT_MAX = 1_000_000_000_000;
export const ADJUSTMENTS_PER_PERIOD_MAX = 100;
export const TAX_RATE_BP_MAX = 10_000;

/** The activity the proof above assumes at most (per carrier, yard and period). */
export const ACTIVITY = { peakTrailers: 100_000, events: 500_000, days: 31, appointments: 50_000 } as const;

/**
 * The largest |total| that values within the bounds can produce (the proof above, in exact
 * integers): what the test checks against Number.MAX_SAFE_INTEGER.
 */
export function worstCaseTotal(): bigint {
  const r = BigInt(RATE_MAX);
  const charges =
    BigInt(BOOKED_SPACES_MAX) * r +
    BigInt(ACTIVITY.days) * BigInt(ACTIVITY.peakTrailers) * r +
    2n * BigInt(ACTIVITY.events) * r;
  const fees = BigInt(ACTIVITY.appointments) * r;
  const minimum = BigInt(MINIMUM_MONTHLY_MAX);
  const subtotal =
    (charges > minimum ? charges : minimum) +
    fees +
    BigInt(ADJUSTMENTS_PER_PERIOD_MAX) * BigInt(ADJUSTMENT_MAX);
  const tax = (subtotal * BigInt(TAX_RATE_BP_MAX) + 5000n) / 10_000n;
  return subtotal + tax;
}
