/**
 * Write-only secrets (docs/domain.md "Attachments, cameras, integrations"): reads show a fixed mask; a write that omits a secret, or sends the
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

/**
 * The secret paths a write keeps from the stored config: left out or sent masked in `incoming`,
 * and set in `next` (the config as it will be stored), so their value is the stored one.
 */
export function carriedSecrets(incoming: Json, next: Json, secretFields: readonly string[]): string[] {
  return secretFields.filter((path) => {
    const sent = getPath(incoming, path);
    const kept = getPath(next, path);
    return (sent === undefined || sent === SECRET_MASK) && kept !== undefined && kept !== null && kept !== '';
  });
}

/** scheme://host:port of an http(s) URL, or undefined for anything else. */
export function originOf(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
}

/**
 * A secret is write-only only while it cannot be sent somewhere new: otherwise anyone allowed to
 * edit the address, but not told the secret, could point it at a server of theirs and read it
 * there. So a write that adds an origin (scheme, host, port) the stored addresses did not have must
 * send every kept secret again; the same host on another path or the same origins rearranged may keep
 * them. Returns the secrets that must be sent ([] when none).
 */
export function secretsToResend(
  before: readonly string[],
  after: readonly string[],
  carried: readonly string[],
): { moved: string[]; paths: string[] } {
  const known = new Set(before.map(originOf));
  const moved = [...new Set(after.map(originOf))].filter(
    (o): o is string => o !== undefined && !known.has(o),
  );
  return { moved, paths: moved.length > 0 ? [...carried] : [] };
}

/** The message for a secret that must be sent again because its address moved. */
export function resendMessage(moved: readonly string[]): string {
  return (
    `required again: the address changed to ${moved.join(', ')}, and a stored secret is never sent ` +
    'to a new address (send the secret with the new address)'
  );
}
