import { extname, sep } from 'node:path';
import type { Request, Response } from 'express';
import { AppError, NotFoundError } from '../../http/errors.js';
import { PAGE_HEADERS } from '../../http/page-headers.js';
import type { UiAsset } from './service.js';
import { chooseRepresentation } from './variants.js';

/** Vite's assets/ folder holds content-hashed names: a new build means a new name, so keep them a year. */
const HASHED = 'public, max-age=31536000, immutable';
/** HTML keeps its name across releases: revalidate every time (ETag, If-None-Match -> 304). */
const HTML = 'no-cache';
/** Other files keep their names too; a few minutes saves requests and a release shows soon. */
const OTHER = 'public, max-age=300';

/**
 * A service worker script keeps its address across releases and the browser installs a new
 * release only when it sees new bytes: always revalidate it, like HTML.
 */
const SERVICE_WORKERS = new Set([['driver', 'sw.js'].join(sep)]);

function cacheControl(asset: UiAsset): string {
  if (asset.isHtml || SERVICE_WORKERS.has(asset.relativePath)) return HTML;
  return asset.relativePath.split(sep)[0] === 'assets' ? HASHED : OTHER;
}

/**
 * Sends a file of the UI (resolved and checked by service.ts), or its .br/.gz copy when the
 * request accepts it. An encoded copy is sent whole, ignoring Range (200, no Accept-Ranges): a
 * byte range of a compressed stream is of no use to a browser, and Range on the file itself
 * (identity) still works.
 */
export async function sendUiFile(req: Request, res: Response, asset: UiAsset): Promise<void> {
  const { file, encoding, varies } = await chooseRepresentation(req, asset);
  res.set({
    'Cache-Control': cacheControl(asset),
    'X-Content-Type-Options': 'nosniff',
    // The app does not hash bodies for ETags; send() answers If-None-Match from this header.
    ETag: file.etag,
  });
  // The type of the file itself, also for its copy (send() would call a .br file octet-stream).
  res.type(extname(asset.relativePath) || 'application/octet-stream');
  if (asset.isHtml) res.set(PAGE_HEADERS);
  if (varies) res.vary('Accept-Encoding');
  if (encoding) res.set('Content-Encoding', encoding);
  await sendFile(res, file, encoding === undefined);
}

function sendFile(res: Response, file: UiAsset, acceptRanges: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    // root + relative path: send repeats its own traversal and dot-file checks as a second guard.
    const options = { root: file.root, dotfiles: 'deny' as const, cacheControl: false, acceptRanges };
    res.sendFile(file.relativePath, options, (err) => {
      if (!err || res.headersSent) return resolve();
      // The problem+json that follows is neither this file nor encoded.
      for (const name of ['Content-Encoding', 'ETag', 'Cache-Control', 'Content-Security-Policy'])
        res.removeHeader(name);
      const status = (err as { status?: number }).status;
      if (status === 404 || status === 403) return reject(new NotFoundError('UI asset', file.relativePath));
      if (status === 416 || status === 412) {
        const headers = (err as { headers?: Record<string, string> }).headers;
        if (headers) res.set(headers);
        const code = status === 416 ? 'range-not-satisfiable' : 'precondition-failed';
        return reject(
          new AppError(status, code, err.message, `The file cannot answer this request: ${err.message}.`),
        );
      }
      reject(err);
    });
  });
}
