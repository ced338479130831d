import { moneyInput, parseMoney, percentToBp } from './money';

/** One field of a billing form; `name` is the API's field name, so a server error lands on it. */
export interface FieldSpec {
  name: string;
  label: string;
  kind: 'money' | 'count' | 'percent' | 'text' | 'textarea' | 'email';
  hint?: string;
  /** Shown in an empty field (a carrier's rate: the yard's value it inherits). */
  placeholder?: string;
  required?: boolean;
}

export type Texts = Record<string, string>;
export type Errors = Record<string, string | undefined>;

/** A record's value as the field's text (money in the currency's unit, tax as a percentage). */
export function toText(spec: FieldSpec, value: unknown, currency: string): string {
  if (value === null || value === undefined) return '';
  if (spec.kind === 'money') return moneyInput(Number(value), currency);
  if (spec.kind === 'percent') return String(Number(value) / 100);
  return String(value);
}

/**
 * The field texts as the API's body: money to minor units, a percentage to basis points, an empty
 * field to `empty` (null: inherit, or the API's default when left out). Errors are by field name.
 */
export function toBody(
  specs: FieldSpec[],
  values: Texts,
  currency: string,
  empty: null | undefined,
): { body: Record<string, unknown>; errors: Errors } {
  const body: Record<string, unknown> = {};
  const errors: Errors = {};
  for (const s of specs) {
    const text = (values[s.name] ?? '').trim();
    if (!text) {
      if (s.required) errors[s.name] = 'Required.';
      else if (empty !== undefined || s.kind === 'text' || s.kind === 'textarea' || s.kind === 'email')
        body[s.name] = empty ?? null;
      continue;
    }
    if (s.kind === 'money') {
      const parsed = parseMoney(text, currency);
      if (parsed.ok) body[s.name] = parsed.minor;
      else errors[s.name] = parsed.message;
    } else if (s.kind === 'count') {
      if (/^\d+$/.test(text)) body[s.name] = Number(text);
      else errors[s.name] = 'Type a whole number, e.g. 10.';
    } else if (s.kind === 'percent') {
      const bp = percentToBp(text);
      if (bp === null) errors[s.name] = 'Type a percentage with at most two decimals, e.g. 8.25.';
      else body[s.name] = bp;
    } else {
      body[s.name] = text;
    }
  }
  return { body, errors };
}
