/**
 * What a gate's card shows about its relay and whether its Open button works, in the gate house's
 * lane board and the dashboard's gate panel alike: the one place that turns the gate record, the
 * relay's state and a rate limit into a badge and a reason. Only the words differ by where the user
 * stands (`GateWords`): at the gate house the barrier is in sight, at the office it is not.
 */
export type GateState = 'ok' | 'fault' | 'opening' | 'simulated' | 'idle' | 'unknown';

export interface GateViewFacts {
  /** The gate has a relay binding (null relay: a manual gate). */
  hasRelay: boolean;
  /** The relay's state; 'simulated' (or `simulated`) for a relay that pulses nothing. */
  state: GateState | undefined;
  /** The relay driver is the simulated one (a relay that works but moves no barrier). */
  simulated?: boolean;
  /** What the driver (or the last actuation) reported when in fault. */
  error?: string | null | undefined;
  /** An actuation of this gate is running. */
  busy: boolean;
  /** A 429 said the gate may be tried again at this instant (epoch ms). */
  retryAt?: number | undefined;
  /** The signed-in user's role, when the words name it. */
  role?: string | undefined;
  /** The signed-in user may open gates (admin, gate). */
  mayOpen: boolean;
}

/** Why the Open button is off, in the words of where the user stands. */
export interface GateWords {
  notAllowed: (role: string | undefined) => string;
  noRelay: string;
  /** `detail` is " (what the driver said)" or "". */
  fault: (detail: string) => string;
}

export interface GateView {
  badge: { label: string; tone: 'ok' | 'warn' | 'bad' | 'neutral' };
  open: { enabled: boolean; why: string | null };
}

/** `clock` shows an instant as the yard's clock (when a rate-limited gate may be tried again). */
export function gateView(
  g: GateViewFacts,
  now: number,
  clock: (at: number) => string,
  words: GateWords,
): GateView {
  return { badge: relayBadge(g), open: openButton(g, now, clock, words) };
}

function relayBadge(g: GateViewFacts): GateView['badge'] {
  if (!g.hasRelay) return { label: 'No relay (manual gate)', tone: 'neutral' };
  if (g.state === 'fault') return { label: 'Relay fault', tone: 'bad' };
  if (g.state === 'opening' || g.busy) return { label: 'Opening…', tone: 'warn' };
  // A simulated relay works but pulses nothing: say so, nobody must expect a barrier to move.
  if (g.simulated || g.state === 'simulated') return { label: 'Relay simulated', tone: 'warn' };
  if (g.state === 'ok' || g.state === 'idle') return { label: 'Relay ok', tone: 'ok' };
  return { label: 'Relay state unknown', tone: 'neutral' };
}

function openButton(
  g: GateViewFacts,
  now: number,
  clock: (at: number) => string,
  words: GateWords,
): GateView['open'] {
  if (!g.mayOpen) return { enabled: false, why: words.notAllowed(g.role) };
  if (!g.hasRelay) return { enabled: false, why: words.noRelay };
  if (g.state === 'fault') return { enabled: false, why: words.fault(g.error ? ` (${g.error})` : '') };
  if (g.busy || g.state === 'opening') return { enabled: false, why: 'The gate is opening now.' };
  if (g.retryAt !== undefined && g.retryAt > now) {
    return { enabled: false, why: `Opened too often in the last minute. Try again at ${clock(g.retryAt)}.` };
  }
  return { enabled: true, why: null };
}

/** The seconds a 429 asks to wait (its retryAfterSec), a minute (the limit's window) when it did not say. */
export function retryAfterSec(value: unknown): number {
  return typeof value === 'number' && value > 0 ? Math.ceil(value) : 60;
}

/** When a 429 answer lets the gate be tried again: its retryAfterSec, from now. */
export function retryAtFrom(value: unknown, now: number): number {
  return now + retryAfterSec(value) * 1000;
}
