import type { ProblemError } from '../../common/api/problem';

/**
 * What the office reads about a remote gate opening: the one place that turns the API's answers
 * (hardware routes, and at the cloud the site's answer relayed over MQTT) into words and next steps.
 * Pure, so every wording is unit-tested.
 */
export interface GateContext {
  /** The site (yard) the gate belongs to, as the office names it. */
  site: string;
  gate: string;
}

/** A refused or failed opening, in words: what happened to the gate and what to do now. */
export function actuationProblemWords(p: ProblemError, at: GateContext): string {
  switch (p.code) {
    case 'site-offline':
      return `The site ${at.site} is offline: the gate was not opened. Open it at the gate house or try again when the site is back online.`;
    case 'hardware-fault':
      return `The relay of ${at.gate} did not answer (${p.message}): the gate was not opened. Open it by hand at the gate house and call maintenance.`;
    case 'rate-limited':
      return `${at.gate} was opened too often in the last minute (the limit protects the barrier motor). Try again in ${retryAfterSec(p.problem.retryAfterSec)} s.`;
    case 'gate-busy':
      return `${at.gate} is opening right now. Wait a moment, then look at its opening log before trying again.`;
    case 'no-relay':
      return `${at.gate} has no relay: it can only be opened by hand at the gate house.`;
    case 'forbidden':
      return 'Your role may not open gates (admins and gate clerks may). Ask an admin.';
    case 'not-found':
      return `${at.gate} no longer exists or is not in your yards. Reload the page.`;
    case 'bad-site-answer':
      return `The site ${at.site} answered in a way that could not be read; the gate may not have opened. Look at its opening log, then try again.`;
    case 'network-error':
      return `${p.message} The gate may or may not have opened: look at its opening log before trying again.`;
    default:
      return `${p.message} The gate was not opened.`;
  }
}

/** The seconds a 429 asks to wait (its retryAfterSec), a minute when it did not say. */
export function retryAfterSec(value: unknown): number {
  return typeof value === 'number' && value > 0 ? Math.ceil(value) : 60;
}

export type GateState = 'ok' | 'fault' | 'opening' | 'simulated' | 'idle' | 'unknown';

export interface GateFacts {
  hasRelay: boolean;
  state: GateState;
  busy: boolean;
  /** What the relay driver (or the last actuation) reported when in fault. */
  error?: string | null | undefined;
  /** A 429 said the gate may be tried again at this instant (epoch ms). */
  retryAt?: number | undefined;
  role: string | undefined;
  mayOpen: boolean;
}

export interface GateView {
  badge: { label: string; tone: 'ok' | 'warn' | 'bad' | 'neutral' };
  open: { enabled: boolean; why: string | null };
}

/** The gate's badge and whether (and why not) its Open button works. */
export function gateView(g: GateFacts, now: number, clock: (at: number) => string): GateView {
  return { badge: badge(g), open: openButton(g, now, clock) };
}

function badge(g: GateFacts): GateView['badge'] {
  if (!g.hasRelay) return { label: 'No relay (manual gate)', tone: 'neutral' };
  if (g.state === 'fault') return { label: 'Relay fault', tone: 'bad' };
  if (g.state === 'opening' || g.busy) return { label: 'Opening…', tone: 'warn' };
  if (g.state === 'simulated') return { label: 'Relay simulated', tone: 'warn' };
  if (g.state === 'ok' || g.state === 'idle') return { label: 'Relay ok', tone: 'ok' };
  return { label: 'Relay state unknown', tone: 'neutral' };
}

function openButton(g: GateFacts, now: number, clock: (at: number) => string): GateView['open'] {
  if (!g.mayOpen) {
    const who = g.role ? `Your role (${g.role})` : 'Your role';
    return { enabled: false, why: `${who} may not open gates: admins and gate clerks may.` };
  }
  if (!g.hasRelay)
    return { enabled: false, why: 'This gate has no relay: it is opened by hand at the gate house.' };
  if (g.state === 'fault') {
    const detail = g.error ? ` (${g.error})` : '';
    return {
      enabled: false,
      why: `The relay is in fault${detail}. Open the gate by hand at the gate house and call maintenance.`,
    };
  }
  if (g.busy || g.state === 'opening') return { enabled: false, why: 'The gate is opening now.' };
  if (g.retryAt !== undefined && g.retryAt > now) {
    return { enabled: false, why: `Opened too often in the last minute. Try again at ${clock(g.retryAt)}.` };
  }
  return { enabled: true, why: null };
}
