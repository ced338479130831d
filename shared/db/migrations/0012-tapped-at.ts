/**
 * When the driver tapped a task action on the phone (device clock, bounded by the server:
 * docs/domain.md "Working a task"), beside `at`, when the server received it. Null for actions
 * sent without it (staff changes, older apps). Expand only: a task event is immutable and not
 * merged; an older peer parks events that carry the field until it upgrades (docs/sync.md
 * "Schema versions").
 */
export const up = `
ALTER TABLE task_event ADD COLUMN tapped_at INTEGER;
`;
