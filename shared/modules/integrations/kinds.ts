import type { CameraProviderKind } from '../../cameras/types.js';
import { ValidationError } from '../../http/errors.js';
import { zodIssuesToFieldErrors } from '../../http/validation.js';

/** The registered provider kind of that name, else 400 on `path` listing the known kinds. */
export function kindOf(kinds: readonly CameraProviderKind[], kind: string, path: string): CameraProviderKind {
  const found = kinds.find((k) => k.kind === kind);
  if (!found) {
    const known = kinds.map((k) => k.kind).join(', ');
    throw new ValidationError([
      { path, message: `unknown integration kind "${kind}"; known kinds: ${known}` },
    ]);
  }
  return found;
}

/** The config as the kind's zod schema reads it, else 400 on each bad field under body.config. */
export function parseConfig(
  kind: CameraProviderKind,
  config: Record<string, unknown>,
): Record<string, unknown> {
  const parsed = kind.configSchema.safeParse(config);
  if (!parsed.success) throw new ValidationError(zodIssuesToFieldErrors(parsed.error.issues, 'body.config'));
  return parsed.data as Record<string, unknown>;
}
