/**
 * Money and dates as the exports write them. Amounts are integer minor units; they are turned into
 * decimal text with string arithmetic only (never a float division), using the currency's own minor
 * unit count as Intl knows it (USD 2, JPY 0, BHD 3).
 */

/** How many decimals `currency` has (Intl's maximumFractionDigits for it). */
export function minorDigits(currency: string): number {
  return (
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
  );
}

/** `-1234` minor units of USD -> `"-12.34"`; of JPY -> `"-1234"`. A plain decimal, `.` separator, no grouping. */
export function decimalAmount(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`not an exact amount: ${minor}`);
  const digits = minorDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const magnitude = String(Math.abs(minor));
  if (digits === 0) return `${sign}${magnitude}`;
  const padded = magnitude.padStart(digits + 1, '0');
  return `${sign}${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}

/**
 * The amount for a reader in `locale` with the currency's symbol. Intl formats the decimal string
 * exactly (a string operand is not converted to a float).
 */
export function formatMoney(minor: number, currency: string, locale: string): string {
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency }) as Intl.NumberFormat & {
    format(value: string): string;
  };
  return format.format(decimalAmount(minor, currency));
}

/** A tax rate in basis points as a percent text: 825 -> "8.25", 1000 -> "10", 0 -> "0". */
export function percentOf(bp: number): string {
  const whole = Math.trunc(bp / 100);
  const rest = String(bp % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return rest ? `${whole}.${rest}` : String(whole);
}

/** The yard-local calendar date of an instant, `YYYY-MM-DD`. */
export function localDate(at: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(at));
}

/** The yard-local date and time of an instant, `YYYY-MM-DD HH:mm`. */
export function localDateTime(at: number, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(at))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

/** `YYYY-MM-DD` plus `days` calendar days (dates, not instants: no DST involved). */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export const DATE_FORMATS = ['dd/mm/yyyy', 'mm/dd/yyyy', 'yyyy-mm-dd'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/** `YYYY-MM-DD` written in one of the orders the accounting imports accept. */
export function writeDate(date: string, format: DateFormat): string {
  const [y, m, d] = date.split('-');
  if (format === 'dd/mm/yyyy') return `${d}/${m}/${y}`;
  if (format === 'mm/dd/yyyy') return `${m}/${d}/${y}`;
  return date;
}
