import { Id, IsoDateTime, PageQuery } from '../../../http/common-schemas.js';
import { exportName } from '../../../http/export-text.js';
import { z } from '../../../http/zod.js';
import { YardOut } from '../../yards/schema.js';
import { BookedSpaces, Currency, GraceMinutes, RATE_FIELDS, TaxRateBp, Text } from './fields.js';

/** OpenAPI tag of every billing operation. */
export const BILLING_TAG = 'Billing';

const YardConfigFields = z.object({
  currency: Currency,
  taxRateBp: TaxRateBp,
  graceMinutes: GraceMinutes.default(0),
  bookedSpaces: BookedSpaces.default(0).openapi({
    description: 'default booked spaces of a carrier that has a carrier config in the yard (default 0)',
  }),
  spaceMonthlyRate: RATE_FIELDS.spaceMonthlyRate.default(0),
  overageDailyRate: RATE_FIELDS.overageDailyRate.default(0),
  moveFee: RATE_FIELDS.moveFee.default(0),
  gateFee: RATE_FIELDS.gateFee.default(0),
  lateFee: RATE_FIELDS.lateFee.default(0),
  noShowFee: RATE_FIELDS.noShowFee.default(0),
  minimumMonthly: RATE_FIELDS.minimumMonthly.default(0).openapi({
    description:
      'default minimum per period of a carrier that has a carrier config in the yard, in integer minor ' +
      'units of the currency (default 0)',
  }),
  issuerName: Text(200).nullable().default(null).openapi({ description: 'who bills: printed on invoices' }),
  issuerAddress: Text(500).nullable().default(null),
  issuerTaxId: Text(50).nullable().default(null),
  paymentTermsDays: z.number().int().min(0).max(365).default(30).openapi({ description: 'days to pay' }),
});

const YARD_EXAMPLE = {
  currency: 'USD',
  taxRateBp: 825,
  graceMinutes: 30,
  bookedSpaces: 0,
  spaceMonthlyRate: 15_000,
  overageDailyRate: 2_500,
  moveFee: 1_500,
  gateFee: 500,
  lateFee: 5_000,
  noShowFee: 10_000,
  minimumMonthly: 0,
  issuerName: 'Dallas Cross-Dock LLC',
  issuerAddress: '1200 Freight Way, Dallas, TX 75212',
  paymentTermsDays: 30,
};

export const YardConfigPut = YardConfigFields.strict().openapi('BillingYardConfigPut', {
  description:
    'A yard’s billing config, whole: currency (ISO 4217), tax in basis points, grace minutes and the ' +
    'default rates. Money is integer minor units of `currency`. A field left out takes its default.',
  example: YARD_EXAMPLE,
});

export const YardConfigCreate = YardConfigFields.extend({ yardId: Id })
  .strict()
  .openapi('BillingYardConfigCreate', {
    description: 'A new yard billing config (409 billing-config-exists when the yard has one).',
    example: { yardId: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f', ...YARD_EXAMPLE },
  });

/** An amount in an answer: integer minor units of the yard's currency. */
const Amount = z.number().int().openapi({ description: "integer minor units of the yard's currency" });
const OwnAmount = z
  .number()
  .int()
  .nullable()
  .openapi({ description: "integer minor units of the yard's currency; null = the yard's" });

export const YardConfigOut = z
  .object({
    yardId: Id,
    currency: z.string(),
    taxRateBp: z.number().int(),
    graceMinutes: z.number().int(),
    bookedSpaces: z.number().int(),
    spaceMonthlyRate: Amount,
    overageDailyRate: Amount,
    moveFee: Amount,
    gateFee: Amount,
    lateFee: Amount,
    noShowFee: Amount,
    minimumMonthly: Amount,
    issuerName: z.string().nullable(),
    issuerAddress: z.string().nullable(),
    issuerTaxId: z.string().nullable(),
    paymentTermsDays: z.number().int(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  })
  .openapi('BillingYardConfig', {
    description: 'Money fields are integer minor units of `currency`; taxRateBp is basis points.',
  });

/** A carrier's own rates: null inherits the yard's. */
const CarrierRateFields = {
  bookedSpaces: RATE_FIELDS.bookedSpaces.nullable(),
  spaceMonthlyRate: RATE_FIELDS.spaceMonthlyRate.nullable(),
  overageDailyRate: RATE_FIELDS.overageDailyRate.nullable(),
  moveFee: RATE_FIELDS.moveFee.nullable(),
  gateFee: RATE_FIELDS.gateFee.nullable(),
  lateFee: RATE_FIELDS.lateFee.nullable(),
  noShowFee: RATE_FIELDS.noShowFee.nullable(),
  minimumMonthly: RATE_FIELDS.minimumMonthly.nullable(),
};

const CarrierConfigFields = z.object({
  bookedSpaces: CarrierRateFields.bookedSpaces.default(null),
  spaceMonthlyRate: CarrierRateFields.spaceMonthlyRate.default(null),
  overageDailyRate: CarrierRateFields.overageDailyRate.default(null),
  moveFee: CarrierRateFields.moveFee.default(null),
  gateFee: CarrierRateFields.gateFee.default(null),
  lateFee: CarrierRateFields.lateFee.default(null),
  noShowFee: CarrierRateFields.noShowFee.default(null),
  minimumMonthly: CarrierRateFields.minimumMonthly.default(null),
  billToName: exportName(200)
    .nullable()
    .default(null)
    .openapi({ description: 'bill-to name; default the carrier’s' }),
  billToAddress: Text(500).nullable().default(null),
  billToEmail: z.email().max(200).nullable().default(null),
  billToTaxId: Text(50).nullable().default(null),
});

const CARRIER_EXAMPLE = {
  bookedSpaces: 10,
  spaceMonthlyRate: 14_000,
  overageDailyRate: null,
  moveFee: null,
  gateFee: 0,
  minimumMonthly: 100_000,
  billToName: 'Lone Star Logistics – Accounts Payable',
  billToEmail: 'ap@lonestar.example',
};

const RATES_TEXT =
  'Rates are integer minor units of the yard’s currency; null inherits the yard’s value (a rate unset ' +
  'at both levels is 0).';

export const CarrierConfigPut = CarrierConfigFields.strict().openapi('BillingCarrierConfigPut', {
  description: `A carrier’s billing config within a yard, whole (a field left out is null). ${RATES_TEXT}`,
  example: CARRIER_EXAMPLE,
});

export const CarrierConfigCreate = CarrierConfigFields.extend({ carrierId: Id })
  .strict()
  .openapi('BillingCarrierConfigCreate', {
    description: `A new carrier config within the yard (409 billing-config-exists when it has one). ${RATES_TEXT}`,
    example: { carrierId: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f', ...CARRIER_EXAMPLE },
  });

export const CarrierConfigPatch = z
  .object({
    ...CarrierRateFields,
    billToName: exportName(200).nullable(),
    billToAddress: Text(500).nullable(),
    billToEmail: z.email().max(200).nullable(),
    billToTaxId: Text(50).nullable(),
  })
  .partial()
  .strict()
  .openapi('BillingCarrierConfigPatch', {
    description: `Fields to change; a field left out is kept, null makes a rate inherit the yard’s. ${RATES_TEXT}`,
    example: { moveFee: 1_200, minimumMonthly: null },
  });

const EffectiveRates = z
  .object({
    currency: z.string(),
    bookedSpaces: z.number().int(),
    spaceMonthlyRate: Amount,
    overageDailyRate: Amount,
    moveFee: Amount,
    gateFee: Amount,
    lateFee: Amount,
    noShowFee: Amount,
    minimumMonthly: Amount,
  })
  .openapi('BillingEffectiveRates', {
    description:
      'The rates in force for the carrier: its own where set, else the yard’s; integer minor units of `currency`.',
  });

export const CarrierConfigOut = z
  .object({
    id: Id,
    yardId: Id,
    carrierId: Id,
    bookedSpaces: z.number().int().nullable(),
    spaceMonthlyRate: OwnAmount,
    overageDailyRate: OwnAmount,
    moveFee: OwnAmount,
    gateFee: OwnAmount,
    lateFee: OwnAmount,
    noShowFee: OwnAmount,
    minimumMonthly: OwnAmount,
    billToName: z.string().nullable(),
    billToAddress: z.string().nullable(),
    billToEmail: z.string().nullable(),
    billToTaxId: z.string().nullable(),
    effective: EffectiveRates,
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  })
  .openapi('BillingCarrierConfig', {
    description: `The carrier’s own values (null = the yard’s) and, in \`effective\`, what is billed. ${RATES_TEXT}`,
  });

export const YardConfigWithCarriersOut = YardConfigOut.extend({
  carriers: z.array(CarrierConfigOut),
}).openapi('BillingYardConfigWithCarriers');

export const YardConfigWithCarrierIdsOut = YardConfigOut.extend({
  carrierIds: z.array(Id).openapi({ description: 'carriers with a carrier config in the yard' }),
}).openapi('BillingYardConfigWithCarrierIds');

export const YardBillingStatusOut = z
  .object({
    yard: YardOut,
    configured: z.boolean().openapi({ description: 'whether the yard has a billing config' }),
    config: YardConfigOut.nullable(),
    carriers: z.number().int().openapi({ description: 'carrier configs in the yard' }),
  })
  .openapi('BillingYardStatus');

export const ConfigListQuery = PageQuery;

export const YardParams = z.object({ yardId: Id });
export const YardCarrierParams = z.object({ yardId: Id, carrierId: Id });

export type YardConfigPutT = z.output<typeof YardConfigPut>;
export type YardConfigCreateT = z.output<typeof YardConfigCreate>;
export type YardConfigOutT = z.output<typeof YardConfigOut>;
export type CarrierConfigPutT = z.output<typeof CarrierConfigPut>;
export type CarrierConfigCreateT = z.output<typeof CarrierConfigCreate>;
export type CarrierConfigPatchT = z.output<typeof CarrierConfigPatch>;
export type CarrierConfigOutT = z.output<typeof CarrierConfigOut>;
