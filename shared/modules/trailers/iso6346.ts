/**
 * ISO 6346 container numbers: owner code (3 letters), category (U, J or Z), serial (6 digits) and a
 * check digit computed from the ten before it. The gate uses it to catch a mistyped container number
 * before it becomes a second, wrong unit (docs/domain.md "Gate movements and visits"). Pure.
 *
 * Hand-written rather than a dependency: the rule is twenty lines, fixed since 1984, and the npm
 * packages for it are unmaintained single-author ones.
 */

const PATTERN = /^([A-Z]{3}[UJZ])(\d{6})(\d)$/;

/** Letter values: A = 10 upwards, skipping 11, 22, 33 (multiples of 11). */
function letterValue(letter: string): number {
  let value = 10;
  for (let c = 'A'.charCodeAt(0); c < letter.charCodeAt(0); c++) {
    value++;
    if (value % 11 === 0) value++;
  }
  return value;
}

/** The check digit of the first ten characters (owner, category, serial), e.g. "CSQU305438" -> 3. */
export function checkDigitOf(first10: string): number {
  let sum = 0;
  for (let i = 0; i < 10; i++) {
    const ch = first10[i]!;
    const value = i < 4 ? letterValue(ch) : Number(ch);
    sum += value * 2 ** i;
  }
  return (sum % 11) % 10;
}

export type ContainerNumberCheck =
  /** Not in the container number format: nothing to check (a trailer's fleet number). */
  | { kind: 'not-a-container-number' }
  | { kind: 'valid' }
  | {
      kind: 'wrong-check-digit';
      expected: number;
      /** The number as the clerk typed it, with the last digit corrected. */
      corrected: string;
    };

/**
 * Whether a unit number in the container format has the right check digit. Spaces, dashes and case
 * do not matter ("CSQU 305438-3" is CSQU3054383).
 */
export function checkContainerNumber(number: string): ContainerNumberCheck {
  const compact = number.replace(/[\s\-./]/g, '').toUpperCase();
  const match = PATTERN.exec(compact);
  if (!match) return { kind: 'not-a-container-number' };
  const expected = checkDigitOf(`${match[1]}${match[2]}`);
  if (Number(match[3]) === expected) return { kind: 'valid' };
  // Keep the clerk's spacing: only the last digit of what they typed changes.
  const at = number.search(/\d(?=[^\d]*$)/);
  const corrected = `${number.slice(0, at)}${expected}${number.slice(at + 1)}`.trim();
  return { kind: 'wrong-check-digit', expected, corrected };
}
