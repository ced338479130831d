import { type GateWords, gateView, retryAtFrom } from '../../common/gates/gate-view';

/**
 * What a lane card shows about its gate and whether its Open button works, in the gate house's
 * words (the barrier is in sight): common/gates/gate-view.ts decides, for the office's panel alike.
 */
export type RelayState = 'ok' | 'fault' | 'opening' | 'simulated' | 'idle';
export { retryAtFrom };

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

const GATE_HOUSE: GateWords = {
  notAllowed: () => 'Your role may not open gates (gate clerks and admins may).',
  noRelay: 'This gate has no relay: open it by hand.',
  fault: (detail) => `The relay is in fault${detail}. Open the gate by hand and call maintenance.`,
};

/** `clock` shows an instant as the yard's clock (when a rate-limited gate may be tried again). */
export function laneView(g: GateFacts, now: number, clock: (at: number) => string): LaneView {
  const v = gateView({ ...g, simulated: g.driver === 'simulated' }, now, clock, GATE_HOUSE);
  return { badge: v.badge, open: { enabled: v.open.enabled, reason: v.open.why } };
}
