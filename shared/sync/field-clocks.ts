import type { SyncedEntity } from './entities.js';
import { cloudFieldsOf, SITE_FIELDS } from './site-rules.js';

/**
 * The per-field clocks (fieldHlc) of a shared record, as ChangeCapture writes them: the
 * last-writer-wins merge takes each field from the side whose clock for it is greater
 * (merge.ts, docs/sync.md "Conflict rules").
 */

/** A new row: every field it was written with carries the insert's clock. */
export function firstFieldClocks(fields: readonly string[], hlc: string): string {
  return JSON.stringify(Object.fromEntries(fields.map((k) => [k, hlc])));
}

/**
 * An update: the changed fields take the write's clock, the others keep theirs. A record split by
 * field also stamps updatedAt with the write's clock when the write sets it (`stampsUpdatedAt`).
 */
export function nextFieldClocks(
  entity: SyncedEntity,
  current: Record<string, unknown>,
  changed: readonly string[],
  hlc: string,
  stampsUpdatedAt: boolean,
): string {
  const fieldHlc = JSON.parse(String(current.fieldHlc ?? '{}')) as Record<string, string>;
  if (SITE_FIELDS[entity.entity]) {
    pinFieldClocks(entity, current, fieldHlc);
    // Its own clock now, so updatedAt too needs one: this write's.
    if (stampsUpdatedAt) fieldHlc.updatedAt = hlc;
  }
  for (const k of changed) fieldHlc[k] = hlc;
  return JSON.stringify(fieldHlc);
}

/**
 * A record split by field (an appointment): every field gets its own clock before the row's clock
 * moves. A field without one counts as written at the row's clock (merge.ts), so without this a
 * booking's never-set arrival time would count as written by the cloud's next reschedule and win
 * over the arrival its site recorded meanwhile (test/integration/sync/appointments.test.ts).
 */
function pinFieldClocks(
  entity: SyncedEntity,
  current: Record<string, unknown>,
  fieldHlc: Record<string, string>,
): void {
  const fields = [...cloudFieldsOf(entity, current), ...(SITE_FIELDS[entity.entity] ?? [])];
  for (const f of fields) if (fieldHlc[f] === undefined && f in current) fieldHlc[f] = String(current.hlc);
}
