import type { ProblemError } from '../../common/api/problem';
import { type NewUnitQuestion, newUnitQuestion } from './new-unit';
import { problemLines } from './problem-text';

/**
 * What the check-in form shows when the server refused the movement (its field errors are placed
 * on the fields by the screen): a stay the clerk may close by recording anyway, a question about a
 * new trailer, a gate of the wrong direction, or lines of text.
 */
export type Refusal =
  | { kind: 'conflict'; detail: string }
  | { kind: 'new-unit'; question: NewUnitQuestion }
  | { kind: 'gate'; message: string }
  /** `recheckDriver`: the admission check changed since it was shown, so it is asked again. */
  | { kind: 'lines'; lines: string[]; recheckDriver: boolean };

export function readRefusal(
  err: ProblemError,
  yardId: string,
  placedCount: number,
  unplaced: string[],
): Refusal {
  if (err.code === 'already-in-yard') return { kind: 'conflict', detail: err.message };
  const question = newUnitQuestion(err, yardId);
  if (question) return { kind: 'new-unit', question };
  if (err.code === 'gate-direction')
    return { kind: 'gate', message: `${err.message} Choose an inbound gate.` };
  const recheckDriver = err.code === 'driver-not-allowed';
  if (err.status === 401)
    return {
      kind: 'lines',
      recheckDriver,
      lines: [
        'Your session ended: log in again, then press "Check in and open gate" again. Nothing was recorded.',
      ],
    };
  return { kind: 'lines', recheckDriver, lines: problemLines(err, placedCount, unplaced) };
}
