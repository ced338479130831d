/**
 * Exact money arithmetic in integer minor units. Every amount the computation produces must be a
 * safe integer (|x| < 2^53): beyond that a JavaScript number silently loses units, so we refuse
 * (an error naming the amount) rather than bill a rounded figure. Products go through BigInt.
 */

const MAX = BigInt(Number.MAX_SAFE_INTEGER);

export class BillingOverflowError extends RangeError {
  override name = 'BillingOverflowError';
}

/** `value` unchanged when it is a safe integer; otherwise a clear error naming `what`. */
export function assertAmount(value: number | bigint, what: string): number {
  if (typeof value === 'bigint') {
    if (value > MAX || value < -MAX) {
      throw new BillingOverflowError(`${what} (${value}) exceeds the largest exact amount (2^53 - 1)`);
    }
    return Number(value);
  }
  if (!Number.isSafeInteger(value)) {
    throw new BillingOverflowError(`${what} (${value}) is not an exact integer amount (|x| < 2^53)`);
  }
  return value;
}

/** a x b, exact, checked. */
export function multiply(a: number, b: number, what: string): number {
  return assertAmount(BigInt(assertAmount(a, what)) * BigInt(assertAmount(b, what)), what);
}

/** The sum, exact, checked (each term and the total). */
export function sum(values: readonly number[], what: string): number {
  let total = 0n;
  for (const v of values) total += BigInt(assertAmount(v, what));
  return assertAmount(total, what);
}

/**
 * round half up(|subtotal| x taxRateBp / 10000) with the sign of subtotal: a credit's tax is the
 * mirror of the same charge's, so -1005 at 10% is -101 (100.5 rounds up to 101, then negated).
 * The product is formed in BigInt because it can exceed 2^53 while the tax itself does not.
 */
export function taxOf(subtotal: number, taxRateBp: number): number {
  assertAmount(subtotal, 'subtotal');
  if (!Number.isSafeInteger(taxRateBp) || taxRateBp < 0) {
    throw new RangeError(`taxRateBp must be a non-negative integer, got ${taxRateBp}`);
  }
  const magnitude = BigInt(Math.abs(subtotal));
  const rounded = (magnitude * BigInt(taxRateBp) + 5000n) / 10000n; // floor of x + 1/2: half up
  return assertAmount(subtotal < 0 ? -rounded : rounded, 'tax');
}
