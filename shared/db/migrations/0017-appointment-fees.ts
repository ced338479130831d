/**
 * Appointment fees (docs/domain.md "Billing"): lateFee per appointment of the carrier that arrived
 * late, noShowFee per appointment marked no-show, rates like the others. At the yard they default
 * to 0; at the carrier null inherits the yard's (shared/modules/billing/compute/rates.ts).
 * The two indexes let billing count a carrier's late arrivals and no-shows of a period
 * (shared/modules/billing/inputs.ts) without reading the carrier's whole appointment history.
 */
export const up = `
ALTER TABLE billing_yard_config ADD COLUMN late_fee bigint NOT NULL DEFAULT 0 CHECK (late_fee >= 0);
ALTER TABLE billing_yard_config ADD COLUMN no_show_fee bigint NOT NULL DEFAULT 0 CHECK (no_show_fee >= 0);
ALTER TABLE billing_carrier_config ADD COLUMN late_fee bigint CHECK (late_fee >= 0);
ALTER TABLE billing_carrier_config ADD COLUMN no_show_fee bigint CHECK (no_show_fee >= 0);
CREATE INDEX appointment_carrier_arrived ON appointment (yard_id, carrier_id, arrived_at);
CREATE INDEX appointment_carrier_no_show ON appointment (yard_id, carrier_id, no_show_at);
`;
