import { resolveRates } from '../compute/index.js';
import type { Rates } from '../compute/types.js';
import type { CarrierConfigRow, YardConfigRow } from './repo.js';

/**
 * The rates in force for a carrier in a yard, from the stored configs. The inherit rule itself has
 * one home, the pure computation's resolveRates (compute/rates.ts): a carrier's rate where it sets
 * one, else the yard's; the yard's bookedSpaces and minimumMonthly only for carriers with a config.
 */
export function effectiveRates(yard: YardConfigRow, carrier: CarrierConfigRow | undefined): Rates {
  return resolveRates(yard, carrier ?? null);
}
