/**
 * What a lane card shows about its gate and whether its Open button works: the one place that turns
 * the gate record, the relay driver's state and a rate limit into a badge and a reason.
 */
export type RelayState = 'ok' | 'fault' | 'opening' | 'simulated' | 'idle';

export interface GateFacts {
  /** The gate has a relay binding (null relay: a manual gate). */
  hasRelay: boolean;
  /** The relay driver's state from /api/hardware/status; undefined when the status did not list it. */
  state: RelayState | undefined;
  /** The driver's name (simulated, serial-lcus, ...). */
  driver: string | undefined;
  /** What the driver reported when in fault. */
  error?: string | undefined;
  /** An actuation of this gate is running. */
  busy: boolean;
  /** A 429 said the gate may be tried again at this time (epoch ms). */
  retryAt?: number | undefined;
  /** The signed-in user may open gates (admin, gate). */
  mayOpen: boolean;
}

export interface LaneView {
  badge: { label: string; tone: 'ok' | 'warn' | 'bad' | 'neutral' };
  open: { enabled: boolean; reason: string | null };
}

/** `clock` shows an instant as the yard's clock (when a rate-limited gate may be tried again). */
export function laneView(g: GateFacts, now: number, clock: (at: number) => string): LaneView {
  const badge = relayBadge(g);
  return { badge, open: openButton(g, now, clock) };
}

function relayBadge(g: GateFacts): LaneView['badge'] {
  if (!g.hasRelay) return { label: 'No relay (manual gate)', tone: 'neutral' };
  if (g.state === 'fault') return { label: 'Relay fault', tone: 'bad' };
  if (g.state === 'opening' || g.busy) return { label: 'Opening…', tone: 'warn' };
  // A simulated relay works but pulses nothing: say so, a clerk must not expect a barrier to move.
  if (g.driver === 'simulated' || g.state === 'simulated') return { label: 'Relay simulated', tone: 'warn' };
  if (g.state === 'ok' || g.state === 'idle') return { label: 'Relay ok', tone: 'ok' };
  return { label: 'Relay state unknown', tone: 'neutral' };
}

function openButton(g: GateFacts, now: number, clock: (at: number) => string): LaneView['open'] {
  if (!g.mayOpen)
    return { enabled: false, reason: 'Your role may not open gates (gate clerks and admins may).' };
  if (!g.hasRelay) return { enabled: false, reason: 'This gate has no relay: open it by hand.' };
  if (g.state === 'fault') {
    const why = g.error ? ` (${g.error})` : '';
    return {
      enabled: false,
      reason: `The relay is in fault${why}. Open the gate by hand and call maintenance.`,
    };
  }
  if (g.busy || g.state === 'opening') return { enabled: false, reason: 'The gate is opening now.' };
  if (g.retryAt !== undefined && g.retryAt > now) {
    return {
      enabled: false,
      reason: `Opened too often in the last minute. Try again at ${clock(g.retryAt)}.`,
    };
  }
  return { enabled: true, reason: null };
}

/** When a 429 answer lets the gate be tried again: its retryAfterSec (or Retry-After), from now. */
export function retryAtFrom(retryAfterSec: unknown, now: number): number {
  const sec = typeof retryAfterSec === 'number' && retryAfterSec > 0 ? retryAfterSec : 60;
  return now + sec * 1000;
}
