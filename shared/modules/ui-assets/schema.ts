import { z } from '../../http/zod.js';

/**
 * A trailing path parameter as segments. Express 5 hands a trailing wildcard over as an array of
 * decoded segments; a plain string is split on "/" so both shapes become segments.
 */
function pathSegments(description: string, example: string) {
  return z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : v.split('/')))
    .openapi({ type: 'string', description, example });
}

/** The path after /api/ui/assets/binary/. */
export const UiAssetParams = z.object({
  fullPath: pathSegments(
    'path of the file inside the UI root, e.g. index.html or assets/app.css',
    'index.html',
  ),
});

/** The path of a web app's page or file, after the leading "/". */
export const UiAppParams = z.object({
  fullPath: pathSegments(
    'a file of the built web apps (assets/gate-1a2b.js) or a page of an app (gate/, gate/check-out)',
    'gate/check-out',
  ),
});
