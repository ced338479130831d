import type { Core } from '../../core.js';

/**
 * Reads a setting through the settings service when it offers `get(name)`, else straight from the
 * `setting` table (value is JSON); `fallback` when unset or not of the expected kind.
 */
export async function settingValue<T>(
  core: Core,
  name: string,
  accept: (value: unknown) => value is T,
  fallback: T,
): Promise<T> {
  const service = core.services.settings as unknown as { get?: (name: string) => unknown };
  if (typeof service.get === 'function') {
    try {
      const answer = await service.get(name);
      if (accept(answer)) return answer;
      if (answer && typeof answer === 'object' && 'value' in answer && accept(answer.value))
        return answer.value;
    } catch {
      // unknown to the settings registry: fall back to the table
    }
  }
  const row = await core.kysely
    .selectFrom('setting')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirst();
  if (!row) return fallback;
  try {
    const parsed: unknown = JSON.parse(row.value);
    return accept(parsed) ? parsed : fallback;
  } catch {
    return fallback;
  }
}

export const isPositiveInt = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v > 0;
export const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
