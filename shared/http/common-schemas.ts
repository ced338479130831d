import { z } from './zod.js';

/** Shared building blocks for module schemas. */

export const Id = z
  .uuid({ error: 'must be a UUID' })
  .openapi({ example: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f' });

export const IsoDateTime = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2026-03-01T08:00:00Z' })
  .openapi({ example: '2026-03-01T08:00:00Z' });

/** ISO date-time in, epoch milliseconds out. */
export const IsoDateTimeMs = IsoDateTime.transform((s) => Date.parse(s));

export const IsoDate = z.iso.date({ error: 'must be a date, YYYY-MM-DD' }).openapi({ example: '2027-06-30' });

/** Query booleans: only the words true and false. */
export const QueryBool = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .transform((v) => v === 'true')
  .openapi({ type: 'boolean' });

export const Limit = z.coerce
  .number({ error: 'must be a number' })
  .int()
  .min(1)
  .max(500)
  .default(50)
  .openapi({ type: 'integer', minimum: 1, maximum: 500, default: 50 });

export const Cursor = z
  .string()
  .max(512)
  .regex(/^[A-Za-z0-9_-]+$/, 'not a cursor this API issued')
  .optional()
  .openapi({ description: 'nextCursor from the previous page' });

export const PageQuery = z.object({ limit: Limit, cursor: Cursor });

/** A list answer: items and the cursor of the next page (null on the last page). */
export function page<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}

/** Query values that may repeat (`?status=a&status=b`) or be comma-separated (`?status=a,b`). */
export function queryList<T extends z.ZodType>(item: T) {
  return z
    .preprocess((v) => {
      if (v === undefined) return undefined;
      const parts = (Array.isArray(v) ? v : [v]).flatMap((s) => String(s).split(','));
      return parts.map((s) => s.trim()).filter((s) => s.length > 0);
    }, z.array(item).min(1))
    .optional();
}

export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().openapi({ description: 'Stable, kebab-case error code' }),
    instance: z.string().optional(),
    requestId: z.string().optional(),
    errors: z
      .array(z.object({ path: z.string(), message: z.string(), code: z.string().optional() }))
      .optional(),
  })
  .catchall(z.unknown())
  .openapi('Problem');

export const IdParams = z.object({ id: Id });

/**
 * An http(s) URL with a host, without user:password in it: credentials go in their own write-only
 * fields, which are masked on reads, while URLs are shown as they are. `credentials` says where.
 */
export function httpUrl(max: number, credentials: string) {
  return (
    z
      .url({ protocol: /^https?$/, hostname: /./, error: 'must be an http:// or https:// URL with a host' })
      .max(max)
      // zod runs refinements even after the URL check failed, so this one must cope with a non-URL.
      .refine((u) => {
        if (!URL.canParse(u)) return true;
        const parsed = new URL(u);
        return parsed.username === '' && parsed.password === '';
      }, `must not contain a user name or password; put credentials in ${credentials}`)
  );
}
