/**
 * A location's place on its yard's plan (the dashboard's yard map), optional: a rectangle in plan
 * metres, x to the east and y to the south of the plan's origin (as SVG draws), its top-left corner
 * before rotation, turned clockwise by `plan_rotation` degrees about its centre. All five are set or
 * none is (an unplaced location). Expand only: older rows stay unplaced; an older peer that receives
 * a location row with these fields parks it until it upgrades (docs/sync.md "Schema versions"), and
 * a row from an older peer, without them, leaves a stored position as it was.
 */
export const up = `
ALTER TABLE location ADD COLUMN plan_x REAL;
ALTER TABLE location ADD COLUMN plan_y REAL;
ALTER TABLE location ADD COLUMN plan_width REAL CHECK (plan_width IS NULL OR plan_width > 0);
ALTER TABLE location ADD COLUMN plan_height REAL CHECK (plan_height IS NULL OR plan_height > 0);
ALTER TABLE location ADD COLUMN plan_rotation REAL CHECK (
  (plan_rotation IS NULL OR (plan_rotation >= 0 AND plan_rotation < 360))
  AND (plan_x IS NULL) = (plan_rotation IS NULL)
  AND (plan_y IS NULL) = (plan_rotation IS NULL)
  AND (plan_width IS NULL) = (plan_rotation IS NULL)
  AND (plan_height IS NULL) = (plan_rotation IS NULL)
);
`;
