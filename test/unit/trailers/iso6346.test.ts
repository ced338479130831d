import { describe, expect, it } from 'vitest';
import { checkContainerNumber, checkDigitOf } from '../../../shared/modules/trailers/iso6346.js';

/** The letter values as ISO 6346 prints them (A = 10, no multiples of 11). */
const TABLE: Record<string, number> = {
  A: 10,
  B: 12,
  C: 13,
  D: 14,
  E: 15,
  F: 16,
  G: 17,
  H: 18,
  I: 19,
  J: 20,
  K: 21,
  L: 23,
  M: 24,
  N: 25,
  O: 26,
  P: 27,
  Q: 28,
  R: 29,
  S: 30,
  T: 31,
  U: 32,
  V: 34,
  W: 35,
  X: 36,
  Y: 37,
  Z: 38,
};

/** The standard's sum, written out independently: sum(value x 2^position) mod 11, 10 read as 0. */
function bySum(first10: string): { remainder: number; digit: number } {
  const sum = [...first10].reduce((s, ch, i) => s + (TABLE[ch] ?? Number(ch)) * 2 ** i, 0);
  return { remainder: sum % 11, digit: (sum % 11) % 10 };
}

describe('ISO 6346 container check digits', () => {
  it('accepts real container numbers', () => {
    // CSQU 305438 3: the standard's own worked example; BICU 123456 5: the BIC's sample number.
    for (const n of ['CSQU3054383', 'BICU1234565', 'MSKU9070323', 'CSQU 305438 3', 'csqu-305438-3']) {
      expect(checkContainerNumber(n), n).toEqual({ kind: 'valid' });
    }
  });

  it('names the right digit for a mistyped one, keeping how the clerk wrote it', () => {
    expect(checkContainerNumber('CSQU3054380')).toEqual({
      kind: 'wrong-check-digit',
      expected: 3,
      corrected: 'CSQU3054383',
    });
    expect(checkContainerNumber('BICU 123456-7')).toEqual({
      kind: 'wrong-check-digit',
      expected: 5,
      corrected: 'BICU 123456-5',
    });
  });

  it('leaves numbers that are not container numbers alone (fleet numbers, wrong category letter)', () => {
    for (const n of ['LSLG5303', 'PRFU 482113', 'CSQA3054383', 'CSQU305438', 'CSQU30543833', '53FT-1']) {
      expect(checkContainerNumber(n), n).toEqual({ kind: 'not-a-container-number' });
    }
  });

  it('agrees with the written-out sum for every letter, and reads a remainder of 10 as 0', () => {
    let sawTen = false;
    for (const letter of Object.keys(TABLE)) {
      for (const serial of ['000000', '123456', '999999', '305438', '100013']) {
        const first10 = `${letter}${letter}${letter}U${serial}`;
        const { remainder, digit } = bySum(first10);
        if (remainder === 10) sawTen = true;
        expect(checkDigitOf(first10), first10).toBe(digit);
      }
    }
    expect(sawTen).toBe(true);
  });
});
