/**
 * Billing reads (shared/modules/billing/inputs.ts) by yard and carrier:
 * - visits begun before a period and still present at its start (yard, carrier, out_at), beside
 *   visit_carrier (yard, carrier, in_at) for the visits begun in it;
 * - a carrier's completed moves in a window, without reading every task of the yard.
 */
export const up = `
CREATE INDEX visit_carrier_out ON visit (yard_id, carrier_id, out_at);
CREATE INDEX yard_task_billed ON yard_task (yard_id, billed_carrier_id, completed_at);
`;
