/**
 * Write-only secrets (DOMAIN.md): reads show a fixed mask; a write that omits a secret, or sends the
 * mask back unchanged (a form that round-trips what it read), keeps the stored value.
 */
export const SECRET_MASK = '********';

type Json = Record<string, unknown>;

function getPath(obj: Json, path: string): unknown {
  let cur: unknown = obj;
  for (const key of path.split('.')) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Json)[key];
  }
  return cur;
}

function setPath(obj: Json, path: string, value: unknown): void {
  const keys = path.split('.');
  let cur: Json = obj;
  for (const key of keys.slice(0, -1)) {
    const next = cur[key];
    if (!next || typeof next !== 'object') return;
    cur = next as Json;
  }
  const last = keys.at(-1)!;
  if (value === undefined) delete cur[last];
  else cur[last] = value;
}

/** A deep copy with every present secret replaced by the mask. */
export function maskSecrets(config: Json, secretFields: readonly string[]): Json {
  const copy = structuredClone(config);
  for (const path of secretFields) {
    const value = getPath(copy, path);
    if (value !== undefined && value !== null && value !== '') setPath(copy, path, SECRET_MASK);
  }
  return copy;
}

/** The incoming config with omitted or masked secrets taken from the stored config. */
export function keepStoredSecrets(incoming: Json, stored: Json, secretFields: readonly string[]): Json {
  const merged = structuredClone(incoming);
  for (const path of secretFields) {
    const value = getPath(merged, path);
    if (value === undefined || value === SECRET_MASK) setPath(merged, path, getPath(stored, path));
  }
  return merged;
}

/** Whether a value sent for a secret means "keep what is stored". */
export function keepsSecret(value: string | undefined): boolean {
  return value === undefined || value === SECRET_MASK;
}
