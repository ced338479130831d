import type { ProblemError } from '../../common/api/problem';
import {
  gateView as commonGateView,
  type GateState,
  type GateView,
  type GateWords,
  retryAfterSec,
} from '../../common/gates/gate-view';
import type { OpenGateWords } from '../../common/gates/open-gate';

export type { GateState, GateView };
export { retryAfterSec };

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

/** Why the Open button is off, seen from the office: the barrier is opened by hand at the gate house. */
const OFFICE: GateWords = {
  notAllowed: (role) =>
    `${role ? `Your role (${role})` : 'Your role'} may not open gates: admins and gate clerks may.`,
  noRelay: 'This gate has no relay: it is opened by hand at the gate house.',
  fault: (detail) =>
    `The relay is in fault${detail}. Open the gate by hand at the gate house and call maintenance.`,
};

/** The gate's badge and whether (and why not) its Open button works (common/gates/gate-view.ts). */
export function gateView(g: GateFacts, now: number, clock: (at: number) => string): GateView {
  return commonGateView(g, now, clock, OFFICE);
}

/** The open-gate dialog at the office (common/gates/open-gate.tsx), for one gate of one site. */
export function officeOpenWords(at: GateContext): OpenGateWords {
  return {
    ask: 'Say why the gate is opened from the office (it is recorded).',
    hint: "Recorded in the gate's opening log.",
    placeholder: 'e.g. driver at the barrier, plate unreadable',
    problem: (p) => actuationProblemWords(p, at),
  };
}
