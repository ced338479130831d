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

/** Path segments without the empty one a trailing "/" leaves; `trailingSlash` says whether there was one. */
export function plainSegments(pathSegments: readonly string[]): {
  segments: string[];
  trailingSlash: boolean;
} {
  const trailingSlash = pathSegments.at(-1) === '';
  return { segments: trailingSlash ? pathSegments.slice(0, -1) : [...pathSegments], trailingSlash };
}

/** 400 invalid-path unless there are segments and every one is a plain name (see SEGMENT). */
export function checkSegments(segments: readonly string[]): void {
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
}

/** The real UI root, or undefined when the folder does not exist. */
export function uiRoot(uiDir: string): Promise<string | undefined> {
  return realpath(uiDir).catch(() => undefined);
}

/**
 * A regular file inside the real root at these (checked) segments, or undefined: missing, a
 * directory, or a symlink leading out of the root or to a dot-file.
 */
export async function findFile(root: string, segments: readonly string[]): Promise<UiAsset | undefined> {
  const real = await realpath(join(root, ...segments)).catch(() => undefined);
  if (!real?.startsWith(root + sep)) return undefined;
  const relativePath = relative(root, real);
  if (relativePath.split(sep).some((s) => s.startsWith('.'))) return undefined;
  const info = await stat(real).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  return { root, relativePath, isHtml: /\.html?$/i.test(real), etag };
}

/**
 * Finds a file of the built web UI. A path that is not a plain relative path is 400 invalid-path;
 * a path that is well formed but is no regular file inside the root (missing, a directory, a
 * symlink leading out or to a dot-file) is 404, so nothing outside the root is ever confirmed.
 */
export async function resolveUiAsset(uiDir: string, pathSegments: readonly string[]): Promise<UiAsset> {
  // "dir/" names a directory, which is never served: let it resolve to one and answer 404.
  const { segments } = plainSegments(pathSegments);
  checkSegments(segments);
  const root = await uiRoot(uiDir);
  const file = root ? await findFile(root, segments) : undefined;
  if (!file) throw new NotFoundError('UI asset', segments.join('/'));
  return file;
}
