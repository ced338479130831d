import { createHash } from 'node:crypto';

/** QuickBooks Online's limit on an invoice or credit memo number (DocNumber); Xero takes it too. */
export const EXPORT_NUMBER_MAX = 21;

/**
 * `{yardCode}-{YYYYMM}-{SCAC}`; a carrier without SCAC is named by the last 8 letters and digits of
 * its id upper-cased (a UUIDv7's random part, so unique in practice); `-2`, `-3` after voids.
 */
export function invoiceNumber(
  yardCode: string,
  period: string,
  carrier: { id: string; scac: string | null },
  sequence: number,
): string {
  const party = carrier.scac
    ? carrier.scac.toUpperCase()
    : carrier.id
        .replace(/[^A-Za-z0-9]/g, '')
        .slice(-8)
        .toUpperCase();
  const base = `${yardCode}-${period.replace('-', '')}-${party}`;
  return sequence > 1 ? `${base}-${sequence}` : base;
}

/** Crockford's base 32 (no I, L, O, U: nothing a clerk misreads or retypes wrongly). */
const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const HASH_CHARS = 10;

/**
 * The short form of a number that does not fit (docs/domain.md "Billing", invoice numbers):
 * `{up to 5 letters and digits of the yard code}-{YYMM}-{10 characters}`, at most 21. The 10
 * characters are 50 bits of SHA-256 of the full number (and of `#attempt` after it when the first
 * is taken), so the same full number always gets the same short form. Its last part is 10 characters
 * without a dash, while a full number's is a SCAC, 8 id characters or a sequence: a short form never
 * equals a full number.
 */
export function shortNumber(number: string, period: string, attempt = 0): string {
  const yard = (number.split('-')[0] ?? '').replace(/[^A-Za-z0-9]/g, '').slice(0, 5);
  const digest = createHash('sha256')
    .update(attempt === 0 ? number : `${number}#${attempt}`)
    .digest();
  let bits = 0n;
  for (const byte of digest.subarray(0, 7)) bits = (bits << 8n) | BigInt(byte);
  let hash = '';
  for (let i = 0; i < HASH_CHARS; i++) hash += BASE32[Number((bits >> BigInt(56 - 5 * (i + 1))) & 31n)];
  return `${yard || 'INV'}-${period.slice(2, 4)}${period.slice(5, 7)}-${hash}`;
}

/**
 * The candidates for the invoice's number in accounting imports, in order: the full number where it
 * fits in 21 characters, then its short forms (attempt 0, 1, ...). The invoice gets the first that
 * no other invoice has; the database's unique index (invoice_export_number) is what guarantees it.
 * A collision of 50-bit hashes within one yard's month is not expected in the organisation's
 * lifetime; it is still resolved, by the next attempt.
 */
export function* exportNumberCandidates(number: string, period: string): Generator<string> {
  if (number.length <= EXPORT_NUMBER_MAX) yield number;
  for (let attempt = 0; ; attempt++) yield shortNumber(number, period, attempt);
}
