import { PARTY_STATUSES } from '../../enums.js';
import { Id, IsoDateTime, PageQuery, queryList } from '../../http/common-schemas.js';
import { exportName } from '../../http/export-text.js';
import { z } from '../../http/zod.js';
import { MAX_IDS } from '../trailers/schema.js';

export const CarrierStatus = z.enum(PARTY_STATUSES);

const Contact = z
  .object({
    name: z.string().max(120).optional(),
    phone: z.string().max(40).optional(),
    email: z.email().max(200).optional(),
  })
  .strict();

export const CarrierOut = z
  .object({
    id: Id,
    name: z.string(),
    scac: z.string().nullable(),
    usdot: z.string().nullable(),
    status: CarrierStatus,
    blockedReason: z.string().nullable(),
    contact: Contact.nullable(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    version: z.number().int(),
  })
  .openapi('Carrier');

const Scac = z
  .string()
  .regex(/^[A-Za-z]{2,4}$/, 'must be 2 to 4 letters')
  .transform((s) => s.toUpperCase());

export const CarrierCreate = z
  .object({
    name: exportName(200).openapi({
      description: 'The carrier’s name as invoices and accounting exports write it (no formula-like start)',
    }),
    scac: Scac.nullable().optional(),
    usdot: z
      .string()
      .regex(/^\d{1,8}$/, 'must be up to 8 digits')
      .nullable()
      .optional(),
    status: CarrierStatus.optional(),
    blockedReason: z.string().max(500).nullable().optional(),
    contact: Contact.nullable().optional(),
  })
  .strict()
  .openapi('CarrierCreate', {
    description: 'A carrier (trucking company); a blocked carrier is refused at the gate.',
    example: {
      name: 'Prairie Freight Lines',
      scac: 'PRFL',
      usdot: '1234567',
      contact: { name: 'Dispatch desk', phone: '+13125550100', email: 'dispatch@prairie.example' },
    },
  });

export const CarrierPatch = CarrierCreate.partial().openapi('CarrierPatch', {
  description: 'Fields to change; status blocked with a blockedReason stops its units at the gate.',
  example: { status: 'blocked', blockedReason: 'insurance expired' },
});

export const CarrierListQuery = PageQuery.extend({
  ids: queryList(Id)
    .refine((ids) => ids === undefined || ids.length <= MAX_IDS, `at most ${MAX_IDS} ids`)
    .openapi({ description: `only these carriers (repeat or comma-separate, at most ${MAX_IDS})` }),
  q: z.string().trim().min(1).max(100).optional().openapi({ description: 'name or SCAC contains' }),
  status: CarrierStatus.optional(),
});

export type CarrierOutT = z.infer<typeof CarrierOut>;
export type CarrierCreateT = z.infer<typeof CarrierCreate>;
export type CarrierPatchT = z.infer<typeof CarrierPatch>;
