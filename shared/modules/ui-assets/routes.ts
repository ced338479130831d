import type { Response } from 'express';
import type { CoreParts } from '../../core-parts.js';
import { AppError, NotFoundError } from '../../http/errors.js';
import type { RouteRegistrar } from '../../http/routes.js';
import { UiAssetParams } from './schema.js';
import { resolveUiAsset, type UiAsset } from './service.js';

const TAG = 'UI Assets Controller';

export function registerUiAssetRoutes(r: RouteRegistrar, { paths }: Pick<CoreParts, 'paths'>): void {
  r.add({
    method: 'get',
    path: '/api/ui/assets/binary/{fullPath}',
    tag: TAG,
    summary: 'A file of the built web UI by its full path (never outside the UI root)',
    description:
      'Paths that are not plain relative names ("..", encoded separators or dots, NUL, backslashes, absolute paths, ' +
      'dot-files) are 400 invalid-path. Missing files, directories and symlinks leading outside the root are 404. ' +
      'Answers ETag / Last-Modified and honours If-None-Match (304) and Range.',
    access: 'public',
    params: UiAssetParams,
    response: { contentType: 'application/octet-stream', description: 'the file, with its Content-Type' },
    errors: [404],
    handler: async ({ params, res }) => {
      const asset = await resolveUiAsset(paths.ui, params.fullPath);
      await sendAsset(res, asset);
    },
  });
}

function sendAsset(res: Response, asset: UiAsset): Promise<void> {
  res.set({
    // HTML names stay the same across releases, so revalidate it; other files may be cached a while.
    'Cache-Control': asset.isHtml ? 'no-cache' : 'public, max-age=3600',
    'X-Content-Type-Options': 'nosniff',
    // The app does not hash bodies for ETags; send() answers If-None-Match from this header.
    ETag: asset.etag,
  });
  return new Promise((resolve, reject) => {
    // root + relative path: send repeats its own traversal and dot-file checks as a second guard.
    res.sendFile(asset.relativePath, { root: asset.root, dotfiles: 'deny', cacheControl: false }, (err) => {
      if (!err || res.headersSent) return resolve();
      const status = (err as { status?: number }).status;
      if (status === 404 || status === 403) return reject(new NotFoundError('UI asset', asset.relativePath));
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
