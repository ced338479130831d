import { extname } from 'node:path';
import { AppError, NotFoundError } from '../../http/errors.js';
import { checkSegments, findFile, plainSegments, type UiAsset, uiRoot } from './service.js';

/** The UI folder has no index.html: the server runs from sources without `npm run build:ui`. */
export class UiNotBuiltError extends AppError {
  constructor() {
    super(
      503,
      'ui-not-built',
      'Web apps not built',
      'The web apps have not been built on this server. Run `npm run build:ui` (npm install runs it) and reload.',
    );
  }
}

/** A path of the web apps answers a file, or a redirect to an app's canonical address. */
export type AppAnswer = { file: UiAsset } | { redirect: string };

/**
 * What a GET outside the API answers, from the built UI folder:
 * - `/` -> index.html (the home page);
 * - a file -> the file (`/assets/gate-x.js`, `/gate/index.html`);
 * - `/gate/` -> gate/index.html: an app is a top-level folder with an index.html;
 * - `/gate` -> redirect to `/gate/`, the address the app's router and links use;
 * - `/gate/check-out`, `/gate/yard/x/`: a path under an app whose last segment has no file
 *   extension and is no file -> the app's index.html, whose router shows the screen (deep link);
 * - anything else -> 404 (a missing `/gate/x.js` too, so a stale asset is never answered with HTML).
 * Malformed paths are 400 invalid-path (service.ts); no index.html at the root is 503 ui-not-built.
 */
export async function resolveAppPath(uiDir: string, pathSegments: readonly string[]): Promise<AppAnswer> {
  const { segments, trailingSlash } = plainSegments(pathSegments);
  if (segments.length > 0) checkSegments(segments);
  const root = await uiRoot(uiDir);
  const home = root ? await findFile(root, ['index.html']) : undefined;
  if (!root || !home) throw new UiNotBuiltError();
  const [app] = segments;
  if (app === undefined) return { file: home };
  const file = trailingSlash ? undefined : await findFile(root, segments);
  if (file) return { file };
  const appIndex = await findFile(root, [app, 'index.html']);
  if (appIndex) {
    if (segments.length === 1) return trailingSlash ? { file: appIndex } : { redirect: `/${app}/` };
    if (extname(segments.at(-1) as string) === '') return { file: appIndex };
  }
  throw new NotFoundError('Page or file', `/${segments.join('/')}${trailingSlash ? '/' : ''}`);
}
