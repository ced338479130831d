import type { Rates } from '../compute/types.js';
import type { CarrierConfigRow, YardConfigRow } from './repo.js';

/**
 * The one home of the inherit rule (DOMAIN.md "Billing"): a carrier config's rate where it sets one
 * (not null), else the yard's (the yard's columns default to 0, so a rate unset at both is 0). The
 * yard's bookedSpaces and minimumMonthly are defaults for carriers it has a config for: a carrier
 * without a config in the yard books no spaces and has no minimum, but pays the yard's other rates.
 */
export function effectiveRates(yard: YardConfigRow, carrier: CarrierConfigRow | undefined): Rates {
  return {
    bookedSpaces: carrier ? (carrier.bookedSpaces ?? yard.bookedSpaces) : 0,
    spaceMonthlyRate: carrier?.spaceMonthlyRate ?? yard.spaceMonthlyRate,
    overageDailyRate: carrier?.overageDailyRate ?? yard.overageDailyRate,
    moveFee: carrier?.moveFee ?? yard.moveFee,
    gateFee: carrier?.gateFee ?? yard.gateFee,
    minimumMonthly: carrier ? (carrier.minimumMonthly ?? yard.minimumMonthly) : 0,
  };
}
