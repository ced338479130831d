import { canSeeYard, type Principal } from '../../auth/principal.js';
import { ConflictError } from '../../http/errors.js';
import { checkContainerNumber } from '../trailers/iso6346.js';
import type { MovementRepo } from './repo.js';
import type { MovementCreateT } from './schema.js';

/** A known trailer with the number typed, as the clerk is shown it (a yard out of scope unnamed). */
export interface SameNumberUnit {
  id: string;
  number: string;
  carrierId: string | null;
  carrierName: string | null;
  inYard: boolean;
  yardId: string | null;
  locationName: string | null;
}

/**
 * Before a movement registers a trailer the system does not know under this number and carrier:
 * a number that other trailers carry (in a yard, or of another carrier), or a container number
 * whose ISO 6346 check digit is wrong, is most often a typing slip or a wrong carrier picked. The
 * clerk confirms it is a different unit (`trailer.confirmNew`), and the movement keeps a warning
 * (docs/domain.md "Gate movements and visits").
 */
export async function checkNewTrailer(
  repo: MovementRepo,
  input: MovementCreateT,
  principal: Principal,
  warnings: string[],
): Promise<void> {
  const ref = input.trailer!;
  const number = ref.number!;
  const digit = checkContainerNumber(number);
  const checkDigit =
    digit.kind === 'wrong-check-digit'
      ? { expectedCheckDigit: digit.expected, correctedNumber: digit.corrected }
      : undefined;
  const matches: SameNumberUnit[] = (await repo.sameNumberTrailers(number)).map((t) => {
    const visible = t.yardId !== null && canSeeYard(principal, t.yardId);
    return {
      id: t.id,
      number: t.number,
      carrierId: t.carrierId,
      carrierName: t.carrierName,
      inYard: t.yardId !== null,
      yardId: visible ? t.yardId : null,
      locationName: visible ? t.locationName : null,
    };
  });

  if (!ref.confirmNew && matches.length > 0) {
    const known = matches.map(describe).join('; ');
    throw new ConflictError(
      'same-number-unit',
      `Trailer ${number} is already known: ${known}. Pick that trailer, or send trailer.confirmNew: true if this is a different unit.`,
      { matches, ...(checkDigit ? { checkDigit } : {}) },
    );
  }
  if (!ref.confirmNew && checkDigit) {
    throw new ConflictError(
      'check-digit-mismatch',
      `${number} fails the container check digit (ISO 6346): the last digit should be ${checkDigit.expectedCheckDigit} (${checkDigit.correctedNumber}). Correct the number, or send trailer.confirmNew: true to register it as typed.`,
      checkDigit,
    );
  }
  if (matches.length > 0) {
    warnings.push(
      `same-number-confirmed: trailer ${number} registered as a different unit from ${matches.length} known with this number`,
    );
  }
  if (checkDigit) {
    warnings.push(
      `check-digit: ${number} fails the container check digit; it should end in ${checkDigit.expectedCheckDigit}`,
    );
  }
}

function describe(m: SameNumberUnit): string {
  const of = m.carrierName ? ` of ${m.carrierName}` : ' (no carrier)';
  const where = m.inYard
    ? m.locationName
      ? `in a yard, on ${m.locationName}`
      : 'in a yard'
    : 'not in a yard';
  return `${m.number}${of}, ${where}`;
}
