import { PARTY_STATUSES } from '../../enums.js';
import { Id, IsoDate, IsoDateTime, PageQuery } from '../../http/common-schemas.js';
import { EXAMPLE_ID } from '../../http/examples.js';
import { z } from '../../http/zod.js';

export const DriverKind = z.enum(['yard', 'carrier']);
export const DriverStatus = z.enum(PARTY_STATUSES);
export const CheckReason = z.enum(['driver-blocked', 'license-expired', 'carrier-blocked', 'not-registered']);

/** Licence numbers are stored uppercase without spaces or dashes, so "d12-345 67" finds "D1234567". */
export function normalizeLicense(value: string): string {
  return value.replace(/[\s-]/g, '').toUpperCase();
}

/**
 * Phone numbers typed into a query: spaces, dashes and brackets dropped, and a missing "+" added
 * (an unencoded "+" in a URL arrives as a space, so "?phone=+4917..." must still work).
 */
export function normalizePhoneQuery(value: string): string {
  const compact = value.replace(/[\s()-]/g, '');
  return compact.startsWith('+') ? compact : `+${compact}`;
}

const Phone = z
  .string()
  .trim()
  .regex(/^\+\d{8,15}$/, 'must be E.164: + and 8 to 15 digits, e.g. +4917012345678');
const LicenseNumber = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .transform(normalizeLicense)
  .pipe(z.string().regex(/^[A-Z0-9]{1,32}$/, 'must be letters and digits (spaces and dashes are ignored)'));
const LicenseRegion = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2}(-[A-Za-z0-9]{1,3})?$/, 'must be a country or region code, e.g. US-TX or DE')
  .transform((s) => s.toUpperCase());
const DriverCode = z.string().regex(/^[A-Za-z0-9_-]{2,32}$/, 'must be 2 to 32 letters, digits, _ or -');
const Pin = z.string().regex(/^\d{4,8}$/, 'must be 4 to 8 digits');

export const DriverOut = z
  .object({
    id: Id,
    kind: DriverKind,
    carrierId: Id.nullable(),
    firstName: z.string(),
    lastName: z.string(),
    phone: z.string().nullable(),
    licenseNumber: z.string().nullable(),
    licenseRegion: z.string().nullable(),
    licenseExpiresOn: IsoDate.nullable(),
    status: DriverStatus,
    blockedReason: z.string().nullable(),
    driverCode: z.string().nullable(),
    hasPin: z.boolean().openapi({ description: 'Whether a PIN is set (the PIN itself is never shown)' }),
    notes: z.string().nullable(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    version: z.number().int(),
  })
  .openapi('Driver');

const driverFields = {
  kind: DriverKind,
  carrierId: Id.nullable().optional().openapi({ description: 'Required for carrier drivers' }),
  firstName: z.string().trim().min(1).max(100),
  lastName: z.string().trim().min(1).max(100),
  phone: Phone.nullable().optional(),
  licenseNumber: LicenseNumber.nullable().optional(),
  licenseRegion: LicenseRegion.nullable().optional(),
  licenseExpiresOn: IsoDate.nullable().optional(),
  status: DriverStatus.optional(),
  blockedReason: z.string().trim().max(500).nullable().optional(),
  driverCode: DriverCode.nullable()
    .optional()
    .openapi({ description: 'Yard drivers only: login code, unique' }),
  pin: Pin.nullable()
    .optional()
    .openapi({ description: 'Yard drivers only: 4 to 8 digits, stored as a hash; null removes it' }),
  notes: z.string().trim().max(2000).nullable().optional(),
};

export const DriverCreate = z
  .object(driverFields)
  .strict()
  .openapi('DriverCreate', {
    description: 'A carrier driver (checked at the gate) or a yard driver (signs in on the driver app).',
    example: {
      kind: 'carrier',
      carrierId: EXAMPLE_ID.carrier,
      firstName: 'Dana',
      lastName: 'Cruz',
      phone: '+13125550123',
      licenseNumber: 'D1234567',
      licenseRegion: 'US-IL',
      licenseExpiresOn: '2029-06-30',
    },
  });

export const DriverPatch = z
  .object(driverFields)
  .partial()
  .strict()
  .openapi('DriverPatch', {
    description: 'Fields to change. Send pin to reset it (signs the driver out everywhere)',
    example: { phone: '+13125550199', licenseExpiresOn: '2031-06-30' },
  });

export const DriverListQuery = PageQuery.extend({
  kind: DriverKind.optional(),
  carrierId: Id.optional(),
  status: DriverStatus.optional(),
  q: z.string().trim().min(1).max(100).optional().openapi({ description: 'name, phone or licence contains' }),
});

export const DriverCheckQuery = z.object({
  driverId: Id.optional().openapi({
    description: 'a registered driver, as chosen at the gate (the check the movement will make)',
  }),
  licenseNumber: LicenseNumber.optional(),
  licenseRegion: LicenseRegion.optional(),
  phone: z
    .string()
    .trim()
    .min(1)
    .transform(normalizePhoneQuery)
    .pipe(z.string().regex(/^\+\d{8,15}$/, 'must be a phone number: 8 to 15 digits, + optional'))
    .optional(),
});

export const DriverCheckOut = z
  .object({
    known: z.boolean(),
    allowed: z.boolean(),
    reasons: z.array(CheckReason),
    driver: DriverOut.optional(),
  })
  .openapi('DriverCheck');

export const DriverSearchQuery = z.object({
  q: z.string().trim().min(1).max(100),
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({
    type: 'integer',
    minimum: 1,
    maximum: 100,
    default: 20,
    description: 'how many best matches',
  }),
});

export const DriverSearchOut = z
  .object({
    items: z.array(
      z.object({
        score: z.number().int().openapi({
          description:
            '3 exact licence number or phone, 2 name starts with q, 1 name/licence/phone contains q',
        }),
        driver: DriverOut,
      }),
    ),
    nextCursor: z.string().nullable().openapi({
      description:
        'always null: a search answers one ranked page, the best `limit` matches; narrow q for others',
    }),
  })
  .openapi('DriverSearchResult');

export const DriverBlockQuery = z.object({
  reason: z.string().trim().min(1).max(500).optional(),
});

export type DriverOutT = z.infer<typeof DriverOut>;
export type DriverCreateT = z.infer<typeof DriverCreate>;
export type DriverPatchT = z.infer<typeof DriverPatch>;
export type DriverCheckOutT = z.infer<typeof DriverCheckOut>;
export type CheckReasonT = z.infer<typeof CheckReason>;
