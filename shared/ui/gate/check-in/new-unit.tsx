import { ProblemError } from '../../common/api/problem';

/** A known trailer with the number typed, as the server names it (same-number-unit). */
interface SameNumberUnit {
  number: string;
  carrierName: string | null;
  inYard: boolean;
  yardId: string | null;
  locationName: string | null;
}

/** What the clerk is asked before a new trailer is registered under a doubtful number. */
export interface NewUnitQuestion {
  /** Known trailers with this number, in the clerk's words ("Prairie Haulage, in this yard on S03"). */
  known: string[];
  /** The container number with its right check digit, when the typed one fails it. */
  corrected: { digit: number; number: string } | null;
}

/**
 * The server's "confirm this new trailer" answers (docs/domain.md "Gate movements and visits"):
 * another unit with this number, or a container number whose check digit is wrong. Null for
 * any other problem.
 */
export function newUnitQuestion(err: unknown, yardId: string): NewUnitQuestion | null {
  if (!(err instanceof ProblemError)) return null;
  const p = err.problem as unknown as Record<string, unknown>;
  const digitOf = (o: unknown) => {
    const d = o as { expectedCheckDigit?: number; correctedNumber?: string } | undefined;
    return d?.correctedNumber !== undefined && d.expectedCheckDigit !== undefined
      ? { digit: d.expectedCheckDigit, number: d.correctedNumber }
      : null;
  };
  if (err.code === 'check-digit-mismatch') return { known: [], corrected: digitOf(p) };
  if (err.code !== 'same-number-unit') return null;
  const matches = (p.matches as SameNumberUnit[] | undefined) ?? [];
  return { known: matches.map((m) => unitWords(m, yardId)), corrected: digitOf(p.checkDigit) };
}

function unitWords(m: SameNumberUnit, yardId: string): string {
  const carrier = m.carrierName ?? 'no carrier';
  if (!m.inYard) return `${m.number} of ${carrier}, not in a yard now`;
  const here = m.yardId === yardId ? 'in this yard' : 'in another yard';
  return `${m.number} of ${carrier}, ${here}${m.locationName ? ` on ${m.locationName}` : ''}`;
}

/**
 * The confirm step: what is doubtful about the number, in words, and the clerk's choices: correct
 * the number, or confirm it is a different trailer / the number as written on the unit.
 */
export function NewUnitConfirm(props: {
  typed: string;
  question: NewUnitQuestion;
  busy: boolean;
  onUseCorrected: (number: string) => void;
  onConfirm: () => void;
}) {
  const { known, corrected } = props.question;
  return (
    <div class="message warn" role="alert">
      {known.length > 0 && (
        <p>
          A trailer with number {props.typed} is already known: {known.join('; ')}. If it is that trailer,
          pick it from the list (or choose its carrier).
        </p>
      )}
      {corrected && (
        <p>
          {props.typed} fails the container check digit: the last digit should be {corrected.digit} (
          {corrected.number}). Check the number on the container.
        </p>
      )}
      {corrected && (
        <button type="button" onClick={() => props.onUseCorrected(corrected.number)} disabled={props.busy}>
          Use {corrected.number}
        </button>
      )}{' '}
      <button type="button" class="danger" onClick={props.onConfirm} disabled={props.busy}>
        {known.length > 0 ? 'It is a different trailer: check it in' : 'The number is right: check it in'}
      </button>
    </div>
  );
}
