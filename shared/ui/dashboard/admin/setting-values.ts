/**
 * A setting's value in words and as typed, by the type of its default (the API gives values as
 * JSON: booleans, numbers, strings, lists of strings). Pure, unit-tested.
 */
export type SettingKind = 'boolean' | 'number' | 'list' | 'text';

export function kindOf(defaultValue: unknown): SettingKind {
  if (typeof defaultValue === 'boolean') return 'boolean';
  if (typeof defaultValue === 'number') return 'number';
  if (Array.isArray(defaultValue)) return 'list';
  return 'text';
}

export function showValue(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'On' : 'Off';
  if (typeof value === 'number') return new Intl.NumberFormat().format(value);
  if (Array.isArray(value)) return value.join(', ');
  if (value === null || value === undefined) return '—';
  return String(value);
}

/** The value as the edit form holds it: a list one item per line. */
export function toText(value: unknown): string | boolean {
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.join('\n');
  return value === null || value === undefined ? '' : String(value);
}

/** What was typed, as the API wants it; not-a-number is sent as typed so the server's words come back. */
export function fromText(kind: SettingKind, typed: string | boolean): unknown {
  if (kind === 'boolean') return typed === true;
  const text = String(typed).trim();
  if (kind === 'number') return text !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
  if (kind === 'list')
    return text
      .split(/[\n,]/)
      .map((s) => s.trim())
      .filter(Boolean);
  return text;
}
