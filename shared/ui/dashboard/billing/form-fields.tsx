import { describedBy, Field } from '../../common/components/field';
import { moneyInput, parseMoney } from './money';

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

/** A form's fields, each labelled with its error or hint underneath (ids `${prefix}-${name}`). */
export function FormFields(props: {
  prefix: string;
  specs: FieldSpec[];
  values: Texts;
  errors: Errors;
  currency: string;
  onInput: (name: string, value: string) => void;
}) {
  return (
    <>
      {props.specs.map((s) => {
        const id = `${props.prefix}-${s.name}`;
        const error = props.errors[s.name];
        const common = {
          ...describedBy(id, error, Boolean(s.hint)),
          name: s.name,
          value: props.values[s.name] ?? '',
          placeholder: s.placeholder,
          'aria-required': s.required ? ('true' as const) : undefined,
          onInput: (e: Event) => props.onInput(s.name, (e.currentTarget as HTMLInputElement).value),
        };
        const unit = s.kind === 'money' ? ` (${props.currency})` : s.kind === 'percent' ? ' (%)' : '';
        return (
          <Field
            key={s.name}
            id={id}
            label={`${s.label}${unit}`}
            error={error}
            {...(s.hint ? { hint: s.hint } : {})}
          >
            {s.kind === 'textarea' ? (
              <textarea {...common} rows={3} />
            ) : s.kind === 'email' ? (
              <input {...common} type="email" autoComplete="off" />
            ) : (
              <input
                {...common}
                type="text"
                inputMode={s.kind === 'count' ? 'numeric' : s.kind === 'text' ? 'text' : 'decimal'}
                autoComplete="off"
              />
            )}
          </Field>
        );
      })}
    </>
  );
}

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
      const parsed = parseMoney(text, 'USD');
      // Basis points: a percentage with at most two decimals (8.25 % = 825).
      if (parsed.ok) body[s.name] = parsed.minor;
      else errors[s.name] = 'Type a percentage with at most two decimals, e.g. 8.25.';
    } else {
      body[s.name] = text;
    }
  }
  return { body, errors };
}
