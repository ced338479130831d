import { Id, IsoDateTime, IsoDateTimeMs, PageQuery, QueryBool } from '../../http/common-schemas.js';
import { EXAMPLE_ID } from '../../http/examples.js';
import { z } from '../../http/zod.js';

/** Plates are stored uppercase without spaces or dashes, so a plate read "b-ab 123" finds "BAB123". */
export function normalizePlate(value: string): string {
  return value.replace(/[\s-]/g, '').toUpperCase();
}

export const Plate = z
  .string()
  .trim()
  .min(1)
  .max(20)
  .transform(normalizePlate)
  .pipe(z.string().regex(/^[A-Z0-9]{1,15}$/, 'must be letters and digits (spaces and dashes are ignored)'));

export const PlateRegion = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2}(-[A-Za-z0-9]{1,3})?$/, 'must be a country or region code, e.g. US-TX or DE')
  .transform((s) => s.toUpperCase());

export const TruckStatus = z.enum(['active', 'out_of_service', 'retired']);

export const TruckOut = z
  .object({
    id: Id,
    carrierId: Id.nullable(),
    unitNumber: z.string().nullable(),
    plate: z.string().nullable(),
    plateRegion: z.string().nullable(),
    vin: z.string().nullable(),
    status: TruckStatus,
    yardId: Id.nullable().openapi({ description: 'The yard the truck is in (set by gate movements)' }),
    inYard: z.boolean(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    version: z.number().int(),
  })
  .openapi('Truck');

const truckFields = {
  carrierId: Id.nullable().optional(),
  unitNumber: z.string().trim().min(1).max(32).nullable().optional(),
  plate: Plate.nullable().optional(),
  plateRegion: PlateRegion.nullable().optional(),
  vin: z
    .string()
    .trim()
    .transform((s) => s.toUpperCase())
    .pipe(z.string().regex(/^[A-HJ-NPR-Z0-9]{17}$/, 'must be a 17-character VIN (no I, O or Q)'))
    .nullable()
    .optional(),
  status: TruckStatus.optional(),
};

export const TruckCreate = z
  .object(truckFields)
  .strict()
  .openapi('TruckCreate', {
    description: 'A truck needs a plate or a unit number',
    example: {
      carrierId: EXAMPLE_ID.carrier,
      unitNumber: 'T-118',
      plate: 'IL 4821 PX',
      plateRegion: 'US-IL',
    },
  });

export const TruckPatch = z
  .object(truckFields)
  .partial()
  .strict()
  .openapi('TruckPatch', {
    description: 'Fields to change; the others keep their values.',
    example: { status: 'out_of_service' },
  });

export const TruckListQuery = PageQuery.extend({
  carrierId: Id.optional(),
  plate: Plate.optional().openapi({ description: 'exact plate; spaces, dashes and case are ignored' }),
  inYard: QueryBool.optional(),
  yardId: Id.optional(),
  status: TruckStatus.optional(),
});

export const TruckIdParams = z.object({ truckId: Id });

const InspectionItem = z
  .object({
    code: z.string().trim().min(1).max(64).openapi({ example: 'brakes' }),
    ok: z.boolean(),
    note: z.string().trim().max(500).optional(),
  })
  .strict();

export const InspectionResult = z.enum(['pass', 'fail']);

export const InspectionCreate = z
  .object({
    yardId: Id,
    inspectedAt: IsoDateTimeMs.optional().openapi({ description: 'Defaults to now' }),
    result: InspectionResult,
    items: z.array(InspectionItem).min(1).max(100),
    odometer: z.number().int().min(0).max(10_000_000).nullable().optional(),
    attachmentIds: z.array(Id).max(20).optional(),
    notes: z.string().trim().max(2000).nullable().optional(),
  })
  .strict()
  .openapi('TruckInspectionCreate', {
    description: 'One inspection of the truck in a yard: each checked item, and the overall result.',
    example: {
      yardId: EXAMPLE_ID.yard,
      result: 'fail',
      items: [
        { code: 'brakes', ok: true },
        { code: 'tires', ok: false, note: 'rear left tread below 2 mm' },
      ],
      odometer: 412_880,
      attachmentIds: [EXAMPLE_ID.attachment],
    },
  });

export const InspectionOut = z
  .object({
    id: Id,
    truckId: Id,
    yardId: Id,
    inspectedAt: IsoDateTime,
    inspectorId: z.string().nullable(),
    result: InspectionResult,
    items: z.array(InspectionItem),
    odometer: z.number().int().nullable(),
    attachmentIds: z.array(Id),
    notes: z.string().nullable(),
    createdAt: IsoDateTime,
  })
  .openapi('TruckInspection');

export type TruckOutT = z.infer<typeof TruckOut>;
export type TruckCreateT = z.infer<typeof TruckCreate>;
export type TruckPatchT = z.infer<typeof TruckPatch>;
export type TruckListQueryT = z.infer<typeof TruckListQuery>;
export type InspectionCreateT = z.infer<typeof InspectionCreate>;
export type InspectionOutT = z.infer<typeof InspectionOut>;
export type InspectionItemT = z.infer<typeof InspectionItem>;
