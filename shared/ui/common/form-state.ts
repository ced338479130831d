import { fieldLabel } from './api/words';

/**
 * The state of a form as plain data (no framework): what was typed, which fields were touched, the
 * server's field errors, and whether anything differs from the empty form. Pure functions, so the
 * rules are unit-tested and the screen only renders. Values are JSON-safe: a draft is kept in
 * sessionStorage and a reload gets it back.
 */
export type Values = Record<string, unknown>;

export interface FormState<V extends Values> {
  initial: V;
  values: V;
  touched: Partial<Record<keyof V & string, true>>;
  /** The server's field errors, by form field name; cleared for a field as soon as it is edited. */
  errors: Partial<Record<keyof V & string, string>>;
}

export function initForm<V extends Values>(initial: V, values: V = initial): FormState<V> {
  return { initial, values, touched: {}, errors: {} };
}

/** A field changed: new value, marked touched, its server error gone (the clerk is fixing it). */
export function setField<V extends Values, K extends keyof V & string>(
  s: FormState<V>,
  name: K,
  value: V[K],
): FormState<V> {
  const { [name]: _dropped, ...errors } = s.errors;
  return {
    ...s,
    values: { ...s.values, [name]: value },
    touched: { ...s.touched, [name]: true },
    errors: errors as FormState<V>['errors'],
  };
}

/** Several fields at once (a chosen driver fills the carrier), each as `setField` would. */
export function setFields<V extends Values>(s: FormState<V>, patch: Partial<V>): FormState<V> {
  let out = s;
  for (const [k, v] of Object.entries(patch))
    out = setField(out, k as keyof V & string, v as V[keyof V & string]);
  return out;
}

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** Whether anything differs from the empty form (then leaving or a reload keeps a draft). */
export function isDirty<V extends Values>(s: FormState<V>): boolean {
  return Object.keys(s.values).some((k) => !same(s.values[k], s.initial[k]));
}

/**
 * Places the server's field errors (keyed by path: "trailer.number", "override.reason") on the
 * form's fields: through `aliases` (server path -> field), trying the path then its shorter
 * prefixes ("trailer.number" -> "trailer"), else a field of that very name. What fits no field is
 * returned in `unplaced`, to be shown above the form: an error is never dropped.
 */
export function withServerErrors<V extends Values>(
  s: FormState<V>,
  fieldErrors: Record<string, string>,
  aliases: Record<string, keyof V & string> = {},
): { state: FormState<V>; unplaced: string[] } {
  const errors: Partial<Record<keyof V & string, string>> = {};
  const unplaced: string[] = [];
  for (const [path, message] of Object.entries(fieldErrors)) {
    const field = fieldOf(path, s.values, aliases);
    if (field && errors[field] === undefined) errors[field] = message;
    else if (!field) unplaced.push(path === '_' ? message : `${fieldLabel(path)}: ${message}`);
  }
  return { state: { ...s, errors }, unplaced };
}

function fieldOf<V extends Values>(
  path: string,
  values: V,
  aliases: Record<string, keyof V & string>,
): (keyof V & string) | undefined {
  const parts = path.split('.');
  for (let n = parts.length; n > 0; n--) {
    const prefix = parts.slice(0, n).join('.');
    if (aliases[prefix]) return aliases[prefix];
    if (Object.hasOwn(values, prefix)) return prefix as keyof V & string;
  }
  return undefined;
}

/** A field's error to show: the server's (client checks are the screen's business). */
export function errorOf<V extends Values>(s: FormState<V>, name: keyof V & string): string | undefined {
  return s.errors[name];
}

/**
 * The draft saved in sessionStorage, read back: only the form's own fields, each only when its
 * type matches the empty form's (an old or tampered draft cannot break the screen).
 */
export function fromDraft<V extends Values>(initial: V, raw: string | null): FormState<V> {
  if (!raw) return initForm(initial);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return initForm(initial);
  }
  if (!parsed || typeof parsed !== 'object') return initForm(initial);
  const values = { ...initial };
  for (const k of Object.keys(initial)) {
    const v = (parsed as Values)[k];
    const want = initial[k];
    const fits = want === null ? v === null || typeof v === 'object' : typeof v === typeof want;
    if (v !== undefined && fits) (values as Values)[k] = v;
  }
  return initForm(initial, values);
}

export function toDraft<V extends Values>(s: FormState<V>): string | null {
  return isDirty(s) ? JSON.stringify(s.values) : null;
}
