/**
 * Indexes for matching yard events to appointments (shared/modules/appointments/arrival-repo.ts):
 * - appointment_movement: the appointment a check-in movement matched, found from the movements of
 *   a trailer or truck when it is placed at a door, leaves it, or leaves the yard.
 * - appointment_open_start: the appointments nothing happened to yet (scheduled), by start, for the
 *   no-show sweep; partial, so past appointments with an outcome cost the sweep nothing.
 */
export const up = `
CREATE INDEX appointment_movement ON appointment (movement_id) WHERE movement_id IS NOT NULL;
CREATE INDEX appointment_open_start ON appointment (start_at)
  WHERE arrived_at IS NULL AND cancelled_at IS NULL AND no_show_at IS NULL AND docked_at IS NULL AND completed_at IS NULL;
`;
