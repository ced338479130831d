import { Id, IsoDateTime, PageQuery } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';

/** OpenAPI tag of every yard, gate and location operation. */
export const YARD_TAG = 'Yard Controller';

export const ActiveStatus = z.enum(['active', 'inactive']);

/** An IANA zone name (Europe/Berlin, America/Chicago, UTC), answered in its canonical spelling. */
export const TimeZone = z
  .string()
  .max(64)
  .regex(/^[A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)*$/, 'must be an IANA time zone name, e.g. America/Chicago')
  .refine(isKnownTimeZone, 'not a known IANA time zone')
  .transform((zone) => new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone)
  .openapi({ type: 'string', example: 'America/Chicago' });

function isKnownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const Address = z
  .object({
    line1: z.string().trim().max(200).optional(),
    line2: z.string().trim().max(200).optional(),
    city: z.string().trim().max(120).optional(),
    region: z.string().trim().max(120).optional(),
    postalCode: z.string().trim().max(20).optional(),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code, e.g. US')
      .transform((c) => c.toUpperCase())
      .optional(),
    lat: z.number().min(-90).max(90).optional(),
    lon: z.number().min(-180).max(180).optional(),
  })
  .strict()
  .openapi('Address');

const YardCode = z
  .string()
  // Starts with a letter or digit: the code begins every invoice number, which accounting imports
  // would read as a formula if it began with - (docs/domain.md "Billing", exports).
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9-]{1,15}$/,
    'must be 2 to 16 letters, digits or -, starting with a letter or digit',
  )
  .transform((s) => s.toUpperCase());

const SiteId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only (up to 64)');

export const YardOut = z
  .object({
    id: Id,
    code: z.string(),
    name: z.string(),
    timeZone: z.string(),
    address: z
      .object({
        line1: z.string().optional(),
        line2: z.string().optional(),
        city: z.string().optional(),
        region: z.string().optional(),
        postalCode: z.string().optional(),
        country: z.string().optional(),
        lat: z.number().optional(),
        lon: z.number().optional(),
      })
      .nullable(),
    capacity: z.number().int().nullable().openapi({ description: 'trailer spaces; null = not set' }),
    status: ActiveStatus,
    siteId: z.string(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    version: z.number().int(),
  })
  .openapi('Yard');

export const YardCreate = z
  .object({
    code: YardCode.openapi({ description: 'short code, unique (case-insensitive); stored upper-case' }),
    name: z.string().trim().min(1).max(200),
    timeZone: TimeZone,
    address: Address.nullable().optional(),
    capacity: z.number().int().min(0).max(100_000).nullable().optional(),
    status: ActiveStatus.optional(),
    siteId: SiteId.optional().openapi({ description: 'edge site serving the yard; default this site' }),
  })
  .strict()
  .openapi('YardCreate', {
    description: 'A new yard; its code is unique and its time zone sets its local days.',
    example: {
      code: 'CHI1',
      name: 'Chicago South',
      timeZone: 'America/Chicago',
      address: {
        line1: '4200 S Pulaski Rd',
        city: 'Chicago',
        region: 'IL',
        postalCode: '60632',
        country: 'US',
      },
      capacity: 240,
    },
  });

export const YardPatch = YardCreate.partial().openapi('YardPatch', {
  description: 'Fields to change; the others keep their values.',
  example: { name: 'Chicago South (main)', capacity: 260 },
});

export const YardListQuery = PageQuery.extend({
  q: z.string().trim().min(1).max(100).optional().openapi({ description: 'code or name contains' }),
  status: ActiveStatus.optional(),
});

export type YardOutT = z.infer<typeof YardOut>;
export type YardCreateT = z.infer<typeof YardCreate>;
export type YardPatchT = z.infer<typeof YardPatch>;
