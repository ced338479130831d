import { computeBilling, periodWindow, resolveRates } from './compute/index.js';
import type { BillingInput, BillingResult } from './compute/types.js';
import type { BillingInputs, CarrierConfigRow, InputCounts, YardConfigRow } from './inputs.js';

/** What one computation is for: a yard (with its billing config), a carrier and a period, at `now`. */
export interface CalculationKey {
  yard: { id: string; timeZone: string };
  carrierId: string;
  period: string;
  now: number;
  yardConfig: YardConfigRow;
}

/** The computation's input, gathered from the stored activity, with the configs it was made from. */
export interface Gathered {
  input: BillingInput;
  counts: InputCounts;
  yardConfig: YardConfigRow;
  carrierConfig: CarrierConfigRow | null;
}

/** What a computation was made from, beside its result (stored with summaries and invoices). */
export interface Calculation {
  result: BillingResult;
  counts: InputCounts;
  currency: string;
  yardConfig: YardConfigRow;
  carrierConfig: CarrierConfigRow | null;
}

/**
 * The one path from stored activity to money, used by summaries, invoices and the overage table, in
 * two steps: gather (the rates in force, the carrier config's else the yard's, and the inputs over
 * the period's window, inputs.ts) and compute (the pure compute/, no I/O). Invoice generation takes
 * the steps one by one (invoice/generation.ts); the others calculate.
 */
export class BillingCalculator {
  constructor(readonly inputs: BillingInputs) {}

  async gather(key: CalculationKey): Promise<Gathered> {
    const { yard, carrierId, period, now, yardConfig } = key;
    const carrierConfig = (await this.inputs.carrierConfig(yard.id, carrierId)) ?? null;
    const rates = resolveRates(yardConfig, carrierConfig);
    const window = periodWindow(period, yard.timeZone, now);
    const { input, counts } = await this.inputs.gather({
      yardId: yard.id,
      carrierId,
      period,
      timeZone: yard.timeZone,
      now,
      window,
      rates,
      yardConfig,
    });
    return { input, counts, yardConfig, carrierConfig };
  }

  /** Gathers, then computes. */
  async calculate(key: CalculationKey): Promise<Calculation> {
    return compute(await this.gather(key));
  }
}

/** The pure computation (compute/compute.ts) of what was gathered, in the yard's currency. */
export function compute(gathered: Gathered): Calculation {
  const { input, counts, yardConfig, carrierConfig } = gathered;
  return { result: computeBilling(input), counts, currency: yardConfig.currency, yardConfig, carrierConfig };
}

/** Whether a computation charges anything at all (every line 0: nothing to invoice). */
export function hasCharges(result: BillingResult): boolean {
  return Object.values(result.lines).some((line) => line.amount !== 0);
}
