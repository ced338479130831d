import { z } from '../../http/zod.js';

/**
 * The path after /api/ui/assets/binary/. Express 5 hands a trailing wildcard over as an array of
 * decoded segments; a plain string is split on "/" so both shapes become segments.
 */
export const UiAssetParams = z.object({
  fullPath: z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : v.split('/')))
    .openapi({
      type: 'string',
      description: 'path of the file inside the UI root, e.g. index.html or assets/app.css',
      example: 'index.html',
    }),
});
