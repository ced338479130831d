import type { EmailKindT } from './schema.js';

/** What an edit must have changed for the carrier to be told: what the pass and the driver go by. */
const PASS_FIELDS: ReadonlySet<string> = new Set([
  'refs',
  'trailerNumber',
  'truckPlate',
  'driverName',
  'carrierId',
]);

/**
 * The mail an appointment_event tells the carrier of (docs/configuration.md "Email to carriers"), or null:
 * booked -> confirmation; rescheduled, or an edit of what the pass shows -> change; cancelled ->
 * cancellation; no_show -> no-show. What happens at the gate (arrived, docked, ...) is not mailed.
 * `detail` is the event's JSON detail (an edit lists its `fields`).
 */
export function emailKindOf(eventKind: string, detail: string | null): EmailKindT | null {
  switch (eventKind) {
    case 'booked':
      return 'confirmation';
    case 'rescheduled':
      return 'change';
    case 'edited':
      return editedFields(detail).some((f) => PASS_FIELDS.has(f)) ? 'change' : null;
    case 'cancelled':
      return 'cancellation';
    case 'no_show':
      return 'no_show';
    default:
      return null;
  }
}

function editedFields(detail: string | null): string[] {
  if (!detail) return [];
  try {
    const fields = (JSON.parse(detail) as { fields?: unknown }).fields;
    return Array.isArray(fields) ? fields.filter((f): f is string => typeof f === 'string') : [];
  } catch {
    return [];
  }
}

/** The carrier's contact email from its `contact` JSON ({name, phone, email}), or null. */
export function contactEmailOf(contact: unknown): string | null {
  if (typeof contact !== 'string' || contact === '') return null;
  try {
    const email = (JSON.parse(contact) as { email?: unknown }).email;
    return typeof email === 'string' && email.includes('@') ? email : null;
  } catch {
    return null;
  }
}
