import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../../shared/ui/common/api/problem';
import {
  actuationProblemWords,
  gateView,
  retryAfterSec,
} from '../../../shared/ui/dashboard/gates/gate-words';

const at = { site: 'Dallas Cross-Dock', gate: 'North gate (in)' };
const problem = (status: number, code: string, detail: string, extra: Record<string, unknown> = {}) =>
  new ProblemError({ status, code, title: code, detail, ...extra });
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

describe('actuationProblemWords: what the office reads when a remote opening fails', () => {
  it('504 site-offline names the site, says the gate was not opened and what to do', () => {
    const p = problem(504, 'site-offline', 'Site 0190 did not answer within 10 s.');
    expect(actuationProblemWords(p, at)).toBe(
      'The site Dallas Cross-Dock is offline: the gate was not opened. Open it at the gate house or try again when the site is back online.',
    );
  });

  it('a relay fault, a rate limit, a busy gate and a manual gate each say what happened and what next', () => {
    expect(actuationProblemWords(problem(503, 'hardware-fault', 'Relay driver failed: EIO'), at)).toBe(
      'The relay of North gate (in) did not answer (Relay driver failed: EIO): the gate was not opened. Open it by hand at the gate house and call maintenance.',
    );
    expect(actuationProblemWords(problem(429, 'rate-limited', 'x', { retryAfterSec: 42 }), at)).toBe(
      'North gate (in) was opened too often in the last minute (the limit protects the barrier motor). Try again in 42 s.',
    );
    expect(actuationProblemWords(problem(409, 'gate-busy', 'x'), at)).toMatch(
      /^North gate \(in\) is opening right now/,
    );
    expect(actuationProblemWords(problem(409, 'no-relay', 'x'), at)).toBe(
      'North gate (in) has no relay: it can only be opened by hand at the gate house.',
    );
  });

  it('a dropped connection does not claim the gate stayed shut; unknown problems keep their detail', () => {
    const net = new ProblemError({ status: 0, code: 'network-error', title: 'x', detail: 'No answer.' });
    expect(actuationProblemWords(net, at)).toBe(
      'No answer. The gate may or may not have opened: look at its opening log before trying again.',
    );
    expect(actuationProblemWords(problem(500, 'internal', 'Boom.'), at)).toBe(
      'Boom. The gate was not opened.',
    );
  });

  it('retryAfterSec: the wait the 429 named, else a minute', () => {
    expect(retryAfterSec(7.2)).toBe(8);
    expect(retryAfterSec(undefined)).toBe(60);
    expect(retryAfterSec(-1)).toBe(60);
  });
});

describe('gateView: the badge and whether Open works', () => {
  const base = { hasRelay: true, state: 'ok' as const, busy: false, role: 'admin', mayOpen: true };

  it('a role that may not open sees the button off and why', () => {
    const v = gateView({ ...base, role: 'viewer', mayOpen: false }, 0, clock);
    expect(v.open).toEqual({
      enabled: false,
      why: 'Your role (viewer) may not open gates: admins and gate clerks may.',
    });
  });

  it('an admin at a working relay may open; a fault, a manual gate, an opening gate may not', () => {
    expect(gateView(base, 0, clock)).toEqual({
      badge: { label: 'Relay ok', tone: 'ok' },
      open: { enabled: true, why: null },
    });
    const fault = gateView({ ...base, state: 'fault', error: 'EIO' }, 0, clock);
    expect(fault.badge.tone).toBe('bad');
    expect(fault.open.why).toBe(
      'The relay is in fault (EIO). Open the gate by hand at the gate house and call maintenance.',
    );
    expect(gateView({ ...base, hasRelay: false }, 0, clock).open.enabled).toBe(false);
    expect(gateView({ ...base, busy: true }, 0, clock).badge.label).toBe('Opening…');
    expect(gateView({ ...base, state: 'simulated' }, 0, clock).badge.label).toBe('Relay simulated');
  });

  it('a rate limit turns Open off until the time it names, then on again', () => {
    const retryAt = Date.UTC(2026, 0, 1, 12, 0, 30);
    expect(gateView({ ...base, retryAt }, retryAt - 1000, clock).open).toEqual({
      enabled: false,
      why: 'Opened too often in the last minute. Try again at 12:00:30.',
    });
    expect(gateView({ ...base, retryAt }, retryAt + 1, clock).open.enabled).toBe(true);
  });
});
