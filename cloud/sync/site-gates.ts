import type { SiteSyncStatusOutT } from '../../shared/modules/sync/schema.js';
import type { SiteStatus } from '../../shared/sync/protocol.js';

export type SiteGates = NonNullable<SiteSyncStatusOutT['gates']>;
type GateState = SiteGates[number]['state'];

/**
 * The edge's relay driver states (GateDriverState) as the sites page shows them. A simulated relay
 * works: ok. A state this cloud does not know (a newer edge's) is unknown rather than a reason to
 * drop the site's status.
 */
const SHOWN_AS: Record<string, GateState> = {
  ok: 'ok',
  simulated: 'ok',
  fault: 'fault',
  opening: 'opening',
  idle: 'idle',
};

/**
 * What to store in site.reported_gates for a status: the reported gates in the dashboard's words;
 * for an offline status (a clean stop or the broker's will) the gates last known, each unknown (an
 * offline site's relays cannot be vouched for); null for an online status without gates (an edge
 * older than the field).
 */
export function gatesToStore(status: SiteStatus, stored: string | null): string | null {
  if (status.state === 'offline') {
    const known = storedGates(stored);
    return known ? JSON.stringify(known.map((g) => ({ gateId: g.gateId, state: 'unknown' }))) : null;
  }
  if (!status.gates) return null;
  return JSON.stringify(
    status.gates.map((g) => ({
      gateId: g.gateId,
      // Own keys only: a site may send "constructor" or "__proto__".
      state: Object.hasOwn(SHOWN_AS, g.state) ? SHOWN_AS[g.state]! : 'unknown',
    })),
  );
}

/** site.reported_gates as SiteSyncStatus.gates (null: none reported). */
export function storedGates(stored: string | null): SiteGates | null {
  if (stored === null) return null;
  try {
    const parsed = JSON.parse(stored) as SiteGates;
    return Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}
