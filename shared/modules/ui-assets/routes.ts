import type { Request, RequestHandler, Response } from 'express';
import type { CoreParts } from '../../core-parts.js';
import type { RouteRegistrar } from '../../http/routes.js';
import { resolveAppPath } from './apps.js';
import { UiAppParams, UiAssetParams } from './schema.js';
import { sendUiFile } from './send.js';
import { resolveUiAsset } from './service.js';

const TAG = 'UI Assets Controller';
const APPS_TAG = 'Web apps';

const FILE_RULES =
  'Sends the .br or .gz copy beside the file when Accept-Encoding accepts it (br first; Vary: Accept-Encoding, an ETag per encoding; ' +
  'an encoded copy is sent whole, ignoring Range). Hashed files under assets/ are cached a year (immutable), HTML is revalidated ' +
  '(no-cache, ETag / If-None-Match -> 304) and carries a Content-Security-Policy, other files a few minutes.';

export function registerUiAssetRoutes(r: RouteRegistrar, { paths }: Pick<CoreParts, 'paths'>): void {
  r.add({
    method: 'get',
    path: '/api/ui/assets/binary/{fullPath}',
    tag: TAG,
    summary: 'A file of the built web UI by its full path (never outside the UI root)',
    description:
      'Paths that are not plain relative names ("..", encoded separators or dots, NUL, backslashes, absolute paths, ' +
      'dot-files) are 400 invalid-path. Missing files, directories and symlinks leading outside the root are 404. ' +
      `Answers ETag / Last-Modified and honours If-None-Match (304) and Range. ${FILE_RULES}`,
    access: 'public',
    params: UiAssetParams,
    response: { contentType: 'application/octet-stream', description: 'the file, with its Content-Type' },
    errors: [404],
    handler: async ({ params, req, res }) => {
      await sendUiFile(req, res, await resolveUiAsset(paths.ui, params.fullPath));
    },
  });
}

/**
 * The web apps at `/` (apps.ts says which path answers what). `/{fullPath}` takes the GETs no
 * other route matches (RouteRegistrar tries it after them), and passes on those under another
 * route's first segment.
 */
export function registerWebAppRoutes(r: RouteRegistrar, { paths }: Pick<CoreParts, 'paths'>): void {
  const notBuilt = 'The web apps have not been built on this server (ui-not-built): run `npm run build:ui`';
  const answer = async (req: Request, res: Response, segments: readonly string[]) => {
    const found = await resolveAppPath(paths.ui, segments);
    if ('file' in found) return sendUiFile(req, res, found.file);
    const query = req.originalUrl.indexOf('?');
    res.redirect(301, found.redirect + (query < 0 ? '' : req.originalUrl.slice(query)));
  };
  r.add({
    method: 'get',
    path: '/',
    tag: APPS_TAG,
    summary: 'The web apps: the home page (UI.md), linking to the gate-house, driver and dashboard apps',
    description: FILE_RULES,
    access: 'public',
    response: { contentType: 'text/html', description: 'index.html of the built web apps' },
    errors: [503],
    errorText: { 503: notBuilt },
    handler: ({ req, res }) => answer(req, res, []),
  });
  r.add({
    method: 'get',
    path: '/{fullPath}',
    tag: APPS_TAG,
    summary: "A file or a page of the web apps (any GET outside the API's paths)",
    description:
      'A file of the build (assets/gate-1a2b.js) is the file. gate/ is the gate-house app (gate redirects there, 301); a ' +
      "path under an app whose last segment has no extension (gate/check-out) is that app's page, its router shows the " +
      'screen. Other paths are 404, and so are unknown paths under /api, /v3, /docs, /metrics, /healthz and /readyz ' +
      `(problem+json, never a page). ${FILE_RULES}`,
    access: 'public',
    params: UiAppParams,
    middleware: [notUnderOtherRoutes(r)],
    response: {
      contentType: 'text/html',
      description: 'the page (text/html) or the file, with its Content-Type',
    },
    errors: [404, 503],
    errorText: { 503: notBuilt },
    handler: ({ params, req, res }) => answer(req, res, params.fullPath),
  });
}

/**
 * Passes a path whose first segment is another route's (api, v3, docs, metrics, healthz, readyz)
 * on to the next route, so an unknown API path keeps its problem+json 404 and is never a page.
 */
function notUnderOtherRoutes(r: RouteRegistrar): RequestHandler {
  let taken: Set<string> | undefined;
  return (req, _res, next) => {
    // Read once every route is registered, at the first request.
    taken ??= new Set(
      r.table.map((route) => route.path.split('/')[1] ?? '').filter((s) => !s.startsWith('{')),
    );
    const first = [req.params.fullPath ?? []].flat()[0];
    if (first !== undefined && taken.has(first)) next('route');
    else next();
  };
}
