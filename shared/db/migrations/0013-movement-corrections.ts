/**
 * Billing counts a check-in only when no movement corrects it (docs/domain.md "Billing",
 * shared/modules/billing/inputs.ts): this finds a movement's corrections without reading every
 * movement. Corrections are few, so the index holds only them.
 */
export const up = `
CREATE INDEX movement_corrects ON movement (corrects_id) WHERE corrects_id IS NOT NULL;
`;
