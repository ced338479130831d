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

/** Where and how a config sends its secrets: the addresses in it and, for the auth type, the config. */
export interface SecretUse {
  urls: readonly string[];
  config?: Json;
}

/**
 * The `type` of the object that holds a secret (`auth.type` for `auth.password`): the way it is
 * sent, e.g. hashed in a Digest answer or readable in a Basic header.
 */
function typeBeside(config: Json | undefined, path: string): unknown {
  if (!config) return undefined;
  return getPath(config, [...path.split('.').slice(0, -1), 'type'].join('.'));
}

/**
 * A secret is write-only only while it cannot be sent somewhere new or in a new way: otherwise
 * anyone allowed to edit the config, but not told the secret, could point it at a server of theirs
 * and read it there, or switch Digest to Basic and read it off the wire. So a write that adds an
 * origin (scheme, host, port) the stored addresses did not have must send every kept secret again,
 * and one that changes the `type` beside a kept secret must send that secret again; the same host
 * on another path or the same origins rearranged may keep them. Returns each secret that must be
 * sent, with the reason as the user reads it ([] when none).
 */
export function secretsToResend(
  before: SecretUse,
  after: SecretUse,
  carried: readonly string[],
): Array<{ path: string; message: string }> {
  const known = new Set(before.urls.map(originOf));
  const moved = [...new Set(after.urls.map(originOf))].filter(
    (o): o is string => o !== undefined && !known.has(o),
  );
  const neverSent = 'and a stored secret is never sent';
  if (moved.length > 0) {
    const message = `required again: the address changed to ${moved.join(', ')}, ${neverSent} to a new address (send the secret with the new address)`;
    return carried.map((path) => ({ path, message }));
  }
  return carried.flatMap((path) => {
    const was = typeBeside(before.config, path);
    const now = typeBeside(after.config, path);
    if (was === now) return [];
    const message = `required again: the authentication changed from ${String(was)} to ${String(now)}, ${neverSent} a new way (send the secret with the new authentication)`;
    return [{ path, message }];
  });
}
