/**
 * Seal verification at check-out: the seal recorded for the trailer (at check-in, or set since)
 * against the one the clerk reads on the unit. Case, spaces and dashes do not count ("sl 99812" is
 * "SL-99812"): seals are read off a tag in the dark, and that is not what a mismatch means.
 */
export type SealCheck =
  /** Nothing recorded and nothing typed: nothing to verify. */
  | 'none'
  /** Nothing was recorded; what was typed is recorded with the check-out. */
  | 'new'
  | 'match'
  | 'mismatch'
  /** A seal was recorded but none was typed: the seal is missing or was not read. */
  | 'missing';

export function normalizeSeal(value: string | null | undefined): string {
  return (value ?? '').replace(/[\s-]+/g, '').toUpperCase();
}

export function checkSeal(recorded: string | null | undefined, typed: string): SealCheck {
  const want = normalizeSeal(recorded);
  const got = normalizeSeal(typed);
  if (!want) return got ? 'new' : 'none';
  if (!got) return 'missing';
  return want === got ? 'match' : 'mismatch';
}

/** A mismatch or a missing seal must be acknowledged before the unit may leave. */
export function needsAcknowledgement(check: SealCheck): boolean {
  return check === 'mismatch' || check === 'missing';
}

/** The note recorded with an acknowledged seal difference, so the movement log says what was seen. */
export function sealNote(
  recorded: string | null | undefined,
  typed: string,
  check: SealCheck,
): string | null {
  if (check === 'mismatch')
    return `Seal mismatch acknowledged: recorded ${recorded}, on the unit ${typed.trim()}.`;
  if (check === 'missing') return `Seal missing acknowledged: recorded ${recorded}, none on the unit.`;
  return null;
}
