/**
 * Appointment fees (docs/domain.md "Billing"): lateFee per appointment of the carrier that arrived
 * late, noShowFee per appointment marked no-show, rates like the others. At the yard they default
 * to 0; at the carrier null inherits the yard's (shared/modules/billing/compute/rates.ts).
 */
export const up = `
ALTER TABLE billing_yard_config ADD COLUMN late_fee bigint NOT NULL DEFAULT 0 CHECK (late_fee >= 0);
ALTER TABLE billing_yard_config ADD COLUMN no_show_fee bigint NOT NULL DEFAULT 0 CHECK (no_show_fee >= 0);
ALTER TABLE billing_carrier_config ADD COLUMN late_fee bigint CHECK (late_fee >= 0);
ALTER TABLE billing_carrier_config ADD COLUMN no_show_fee bigint CHECK (no_show_fee >= 0);
`;
