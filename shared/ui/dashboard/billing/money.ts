/**
 * Money as the billing API speaks it (integer minor units of the yard's ISO 4217 currency) and as
 * a clerk reads and types it (a decimal in the currency's own unit, formatted for the locale).
 */
const formats = new Map<string, Intl.NumberFormat>();

function currencyFormat(currency: string): Intl.NumberFormat {
  let f = formats.get(currency);
  if (!f) {
    f = new Intl.NumberFormat(undefined, { style: 'currency', currency });
    formats.set(currency, f);
  }
  return f;
}

/** How many minor units digits the currency has: 2 for USD (cents), 0 for JPY, 3 for KWD. */
export function minorDigits(currency: string): number {
  return currencyFormat(currency).resolvedOptions().maximumFractionDigits ?? 2;
}

/** 15000 USD -> "$150.00" (in the browser's locale); a credit keeps its minus sign. */
export function money(minor: number, currency: string): string {
  return currencyFormat(currency).format(minor / 10 ** minorDigits(currency));
}

/** A money field's text for editing: 15000 USD -> "150.00" (no grouping, a dot as decimal mark). */
export function moneyInput(minor: number | null | undefined, currency: string): string {
  if (minor === null || minor === undefined) return '';
  const digits = minorDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const abs = String(Math.abs(minor)).padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${abs}` : `${sign}${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
}

export type Parsed = { ok: true; minor: number } | { ok: false; message: string };

/**
 * "1,250.5" USD -> 125050 minor units, exactly (string arithmetic, no float rounding). Commas and
 * spaces are taken as grouping; more decimals than the currency has is an error, not a rounding.
 */
export function parseMoney(text: string, currency: string, opts: { signed?: boolean } = {}): Parsed {
  const digits = minorDigits(currency);
  const clean = text.replace(/[\s,]/g, '');
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(clean);
  if (!m)
    return { ok: false, message: `Type an amount in ${currency}, e.g. ${moneyInput(12_345, currency)}` };
  const [, sign, whole = '0', fraction = ''] = m;
  if (sign && !opts.signed) return { ok: false, message: 'Must not be negative.' };
  if (fraction.length > digits) {
    return {
      ok: false,
      message: digits === 0 ? `${currency} has no decimals.` : `At most ${digits} decimals in ${currency}.`,
    };
  }
  const minor = Number(whole + fraction.padEnd(digits, '0'));
  if (!Number.isSafeInteger(minor)) return { ok: false, message: 'That amount is too large.' };
  return { ok: true, minor: sign ? -minor : minor };
}

/** "8.25" (%) -> 825 basis points, exactly; null when it is not a percentage with at most 2 decimals. */
export function percentToBp(text: string): number | null {
  const m = /^(\d{1,5})(?:\.(\d{0,2}))?$/.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

/** Basis points as a percentage: 825 -> "8.25 %". */
export function percentOfBp(bp: number): string {
  return `${new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 }).format(bp / 100)} %`;
}

const counts = new Intl.NumberFormat();
/** A whole count for the locale: 1234 -> "1,234". */
export function count(n: number): string {
  return counts.format(n);
}

/** A money field's hint: "In USD, e.g. 150.00." */
export function moneyHint(currency: string): string {
  return minorDigits(currency) === 0
    ? `Whole ${currency}.`
    : `In ${currency}, e.g. ${moneyInput(15_000, currency)}.`;
}
