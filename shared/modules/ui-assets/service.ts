import { realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { BadRequestError, NotFoundError } from '../../http/errors.js';

/**
 * Allowed path segments: letters, digits and `_ - . @ + ~` and spaces, not starting with a dot.
 * An allowlist rather than a blocklist, so no encoding trick (`..`, `%2f`, `%5c`, NUL, drive
 * letters, dot-files) can get through; the realpath check below then catches symlinks.
 */
const SEGMENT = /^[A-Za-z0-9_@+~-][A-Za-z0-9_.@+~ -]*$/;
const MAX_SEGMENTS = 32;
const MAX_SEGMENT_LENGTH = 255;

export interface UiAsset {
  /** The real UI root (symlinks resolved). */
  root: string;
  /** The file's path relative to that root. */
  relativePath: string;
  isHtml: boolean;
  /** Validator for conditional GETs: changes whenever the file's size or modification time does. */
  etag: string;
}

/**
 * Finds a file of the built web UI. A path that is not a plain relative path is 400 invalid-path;
 * a path that is well formed but is no regular file inside the root (missing, a directory, a
 * symlink leading out or to a dot-file) is 404, so nothing outside the root is ever confirmed.
 */
export async function resolveUiAsset(uiRoot: string, pathSegments: readonly string[]): Promise<UiAsset> {
  // "dir/" names a directory, which is never served: let it resolve to one and answer 404.
  const segments = pathSegments.at(-1) === '' ? pathSegments.slice(0, -1) : pathSegments;
  const display = segments.join('/');
  const wellFormed =
    segments.length > 0 &&
    segments.length <= MAX_SEGMENTS &&
    segments.every((s) => s.length <= MAX_SEGMENT_LENGTH && SEGMENT.test(s));
  if (!wellFormed) {
    throw new BadRequestError(
      'invalid-path',
      'The path must be a relative path of plain names (letters, digits, _ - . @ + ~), with no dot-files or "..".',
    );
  }
  const notFound = new NotFoundError('UI asset', display);
  const root = await realpath(uiRoot).catch(() => undefined);
  if (!root) throw notFound;
  const real = await realpath(join(root, ...segments)).catch(() => undefined);
  if (!real?.startsWith(root + sep)) throw notFound;
  const relativePath = relative(root, real);
  if (relativePath.split(sep).some((s) => s.startsWith('.'))) throw notFound;
  const info = await stat(real).catch(() => undefined);
  if (!info?.isFile()) throw notFound;
  const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  return { root, relativePath, isHtml: /\.html?$/i.test(real), etag };
}
