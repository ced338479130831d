import type { ProblemError } from '../../common/api/problem';
import type { OpenGateWords } from '../../common/gates/open-gate';

/** The open-gate dialog at the gate house (common/gates/open-gate.tsx): the barrier is in sight. */
export const GATE_HOUSE_OPEN: OpenGateWords = {
  ask: 'Say why the gate is opened by hand (it is recorded).',
  hint: "Recorded in the gate's audit log.",
  placeholder: 'e.g. plate unreadable, driver at the barrier',
  problem: actuationProblemText,
  escKey: true,
};

/** What each refusal means at the desk, and what to do. */
export function actuationProblemText(p: ProblemError): string {
  switch (p.code) {
    case 'rate-limited':
      return `${p.message} The limit protects the barrier motor.`;
    case 'gate-busy':
      return 'The gate is opening right now. Wait a moment, then try again if it did not open.';
    case 'hardware-fault':
      return `The relay did not answer: ${p.message} Open the gate by hand and call maintenance.`;
    case 'no-relay':
      return 'This gate has no relay: open it by hand.';
    case 'site-offline':
      return 'The site did not answer in time; the gate will not open later. Try again or call the gate.';
    default:
      return p.message;
  }
}
