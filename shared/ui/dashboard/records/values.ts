import type { FieldSpec, FormValue, FormValues } from './types';

/**
 * Between records and forms, as plain functions (unit-tested): a record's fields become text to
 * edit, and what was typed becomes the request body: on create the fields filled in, on edit only
 * the fields changed, so a PATCH never overwrites what the user did not touch.
 */

function at(record: unknown, path: string): unknown {
  let v: unknown = record;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/**
 * The fields a form shows: editing shows the create-only ones too, not editable (a username), but
 * not a create-only password (it is never shown; changing it is an action of its own).
 */
export function fieldsFor(fields: FieldSpec[], editing: boolean): FieldSpec[] {
  return fields.filter((f) => (editing ? !(f.createOnly && f.kind === 'password') : !f.editOnly));
}

/** A record's values as a form holds them (null record: a new one, from each field's `initial`). */
export function toFormValues(fields: FieldSpec[], record: unknown | null): FormValues {
  const out: FormValues = {};
  for (const f of fields) {
    const kind = f.kind ?? 'text';
    const v = record === null ? undefined : at(record, f.name);
    if (kind === 'checkbox') out[f.name] = typeof v === 'boolean' ? v : f.initial === true;
    else if (kind === 'yards') out[f.name] = Array.isArray(v) ? v.map(String) : null;
    else if (kind === 'password') out[f.name] = '';
    else if (kind === 'json' && v !== undefined && v !== null) out[f.name] = JSON.stringify(v, null, 2);
    else if (v === undefined || v === null) out[f.name] = record === null ? String(f.initial ?? '') : '';
    else out[f.name] = String(v);
  }
  return out;
}

/** A field's value as typed; null stays null (a yard scope of every yard). */
function typedValue(values: FormValues, name: string): FormValue {
  const v = values[name];
  return v === undefined ? '' : v;
}

function same(a: FormValue | undefined, b: FormValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** One field's typed text as the API wants it; undefined leaves it out of the body. */
function sentValue(f: FieldSpec, v: FormValue, editing: boolean): unknown {
  const kind = f.kind ?? 'text';
  if (kind === 'checkbox' || kind === 'yards') return v;
  const text = typeof v === 'string' ? v.trim() : '';
  if (kind === 'password') return text === '' ? undefined : (v as string);
  if (text === '') return f.nullable && editing ? null : undefined;
  if (kind === 'json') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Not JSON: sent as typed, so the server's words ("expected object") land on the field.
      return text;
    }
  }
  if (kind === 'number') {
    const n = Number(text);
    // Not a number: sent as typed, so the server's words ("expected number") land on the field.
    return Number.isFinite(n) ? n : text;
  }
  return text;
}

/**
 * The request body. A dotted field ("contact.email") goes in an object sent whole: on create when
 * any of its fields is filled in, on edit when any changed; with all its fields empty it is null.
 */
export function toBody(
  fields: FieldSpec[],
  values: FormValues,
  initial: FormValues,
  editing: boolean,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const groups = new Map<string, FieldSpec[]>();
  for (const f of fields) {
    if (editing ? f.createOnly : f.editOnly) continue;
    const dot = f.name.indexOf('.');
    if (dot > 0) {
      const group = f.name.slice(0, dot);
      groups.set(group, [...(groups.get(group) ?? []), f]);
      continue;
    }
    if (editing && same(values[f.name], initial[f.name]) && (f.kind ?? 'text') !== 'password') continue;
    const v = sentValue(f, typedValue(values, f.name), editing);
    if (v !== undefined) body[f.name] = v;
  }
  for (const [group, members] of groups) {
    if (editing && members.every((f) => same(values[f.name], initial[f.name]))) continue;
    const obj: Record<string, unknown> = {};
    for (const f of members) {
      const v = sentValue(f, typedValue(values, f.name), false);
      if (v !== undefined) obj[f.name.slice(group.length + 1)] = v;
    }
    if (Object.keys(obj).length > 0) body[group] = obj;
    else if (editing) body[group] = null;
  }
  return body;
}
