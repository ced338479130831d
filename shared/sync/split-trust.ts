import type { SyncedEntity } from './entities.js';
import type { RowChange } from './row-change.js';
import { RowRejected } from './row-errors.js';
import type { Fields } from './row-sql.js';
import { cloudFieldsOf, type OwnYard, sharedWriteRefusal } from './site-rules.js';

/*
 * The cloud's check (site-trust.ts SiteTrust) of a record split by field that a site sends, and the
 * helpers the checks share: a refusal naming its rule, a row's field clocks.
 */

/**
 * A record split by field (site-rules.ts SITE_FIELDS: appointments) from a site: never a new one
 * (bookings are made at the cloud), only in the site's yards, and the site's fields only. A site
 * that changed a cloud field (a value other than the cloud's, stamped at least as late as the
 * cloud's: it would win or tie the merge) is refused whole. A stale copy of the cloud's fields
 * (older stamps) passes as sent: it loses the merge here exactly as the cloud's row wins it at the
 * site, so both sides end with the same row. A cloud field's stamp later than the cloud's on the
 * same value (which only a forged row has) is set back to the cloud's, so that it cannot win later.
 */
export function admitSplit(
  site: string,
  entity: SyncedEntity,
  change: RowChange,
  stored: Fields | undefined,
  ownYard: OwnYard,
): RowChange {
  const data = change.data;
  if (!stored) refuse('site-scope', sharedWriteRefusal(entity, data, { op: 'insert' }, ownYard)!);
  if (!ownYard(stored.yardId))
    refuse('other-site', `${entity.entity} ${change.id} is not in a yard of site ${site}`);
  const cloudFields = cloudFieldsOf(entity, stored).filter((f) => f in data);
  const storedClocks = parseClocks(stored.fieldHlc);
  const clocks = parseClocks(data.fieldHlc);
  if (!storedClocks || !clocks)
    refuse('malformed', `fieldHlc of ${change.entity} ${change.id} is not a JSON object`);
  const storedClock = (f: string) => String(storedClocks[f] ?? stored.hlc);
  const clock = (f: string) => String(clocks[f] ?? data.hlc);
  const changed = cloudFields.filter((f) => !sameValue(data[f], stored[f]) && clock(f) >= storedClock(f));
  if (changed.length > 0) {
    const refusal = sharedWriteRefusal(entity, stored, { op: 'update', fields: changed }, ownYard);
    refuse('booking-field', `site ${site}, ${entity.entity} ${change.id}: ${refusal}`);
  }
  const ahead = cloudFields.filter((f) => clock(f) > storedClock(f));
  if (ahead.length === 0) return change;
  for (const f of ahead) clocks[f] = storedClock(f);
  return { ...change, data: { ...data, fieldHlc: JSON.stringify(clocks) } };
}

/** One value as the two databases and the wire may spell it (booleans as 0/1, null/undefined). */
function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b) || (a == null && b == null)) return true;
  if (typeof a === 'boolean') return b === (a ? 1 : 0);
  if (typeof b === 'boolean') return a === (b ? 1 : 0);
  return false;
}

/** Refuses a site's row: a dead letter naming the rule first (`[rule] detail`). */
export function refuse(rule: string, detail: string): never {
  throw new RowRejected(`[${rule}] ${detail}`);
}

/** A row's field clocks (fieldHlc); undefined when they are not a JSON object. */
export function parseClocks(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return {};
  try {
    const parsed = JSON.parse(String(value)) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
