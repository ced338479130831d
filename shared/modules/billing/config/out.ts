import { assertCanSeeYard, type Principal } from '../../../auth/principal.js';
import { toIso } from '../../../clock.js';
import { ConflictError, NotFoundError } from '../../../http/errors.js';
import type { YardService } from '../../yards/service.js';
import { effectiveRates } from './rates.js';
import type { BillingConfigRepo, CarrierConfigRow, YardConfigRow } from './repo.js';
import type { CarrierConfigOutT, YardConfigOutT } from './schema.js';

/**
 * What the yard and carrier config services (service.ts, carrier-service.ts) share: the checks both
 * make first, in this order (the yard in the caller's scope, 403; existing, 404; its config, 404),
 * the refusals, and the answers' shapes.
 */

/** The yard in the caller's scope (403) and existing (404). */
export function visibleYard(yards: Pick<YardService, 'getRow'>, principal: Principal, yardId: string) {
  assertCanSeeYard(principal, yardId);
  return yards.getRow(yardId);
}

export async function yardConfigOr404(repo: BillingConfigRepo, yardId: string): Promise<YardConfigRow> {
  const row = await repo.yardConfig(yardId);
  if (!row) throw yardConfigNotFound(yardId);
  return row;
}

export function yardConfigNotFound(yardId: string): NotFoundError {
  return new NotFoundError(`Billing config of yard ${yardId}`);
}

export function configExists(detail: string): ConflictError {
  return new ConflictError('billing-config-exists', detail);
}

export function yardConfigOut(row: YardConfigRow): YardConfigOutT {
  return {
    yardId: row.yardId,
    currency: row.currency,
    taxRateBp: row.taxRateBp,
    graceMinutes: row.graceMinutes,
    bookedSpaces: row.bookedSpaces,
    spaceMonthlyRate: row.spaceMonthlyRate,
    overageDailyRate: row.overageDailyRate,
    moveFee: row.moveFee,
    gateFee: row.gateFee,
    lateFee: row.lateFee,
    noShowFee: row.noShowFee,
    minimumMonthly: row.minimumMonthly,
    issuerName: row.issuerName,
    issuerAddress: row.issuerAddress,
    issuerTaxId: row.issuerTaxId,
    paymentTermsDays: row.paymentTermsDays,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}

export function carrierConfigOut(yard: YardConfigRow, row: CarrierConfigRow): CarrierConfigOutT {
  return {
    id: row.id,
    yardId: row.yardId,
    carrierId: row.carrierId,
    bookedSpaces: row.bookedSpaces,
    spaceMonthlyRate: row.spaceMonthlyRate,
    overageDailyRate: row.overageDailyRate,
    moveFee: row.moveFee,
    gateFee: row.gateFee,
    lateFee: row.lateFee,
    noShowFee: row.noShowFee,
    minimumMonthly: row.minimumMonthly,
    billToName: row.billToName,
    billToAddress: row.billToAddress,
    billToEmail: row.billToEmail,
    billToTaxId: row.billToTaxId,
    effective: { currency: yard.currency, ...effectiveRates(yard, row) },
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}
