import { Id, IsoDateTime, PageQuery, QueryBool, queryList } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';
import { MAX_IDS } from '../trailers/schema.js';
import { ActiveStatus } from './schema.js';

export const LocationKind = z.enum(['spot', 'door', 'zone', 'staging']);

/** Sane bounds of a yard plan, in metres: a yard a few kilometres across at most. */
export const PLAN_BOUNDS = { coordinate: 10_000, size: 2_000 } as const;

const coordinate = z.number().min(-PLAN_BOUNDS.coordinate).max(PLAN_BOUNDS.coordinate);
const size = z.number().gt(0).max(PLAN_BOUNDS.size);

/**
 * Where a location lies on its yard's plan (the dashboard's yard map). zod 4 numbers are finite,
 * so NaN and Infinity (JSON 1e999) are refused with the other out-of-range values.
 */
export const LocationPlan = z
  .object({
    x: coordinate.openapi({ description: 'metres east of the plan origin: the left edge before rotation' }),
    y: coordinate.openapi({ description: 'metres south of the plan origin: the top edge before rotation' }),
    width: size.openapi({ description: 'metres, along x before rotation' }),
    height: size.openapi({ description: 'metres, along y before rotation' }),
    rotation: z
      .number()
      .min(0)
      .lt(360)
      .openapi({ description: "degrees clockwise about the rectangle's centre, 0 <= rotation < 360" }),
  })
  .strict()
  .openapi('LocationPlan', {
    description:
      "The location's rectangle on the yard plan, in metres from the plan's origin (x east, y south, " +
      'as the map draws it), turned clockwise about its centre. The map fits the plan to the placed ' +
      'locations, so the origin can be any corner of the yard.',
    example: { x: 12, y: 40, width: 3.7, height: 16, rotation: 0 },
  });

export const LocationOut = z
  .object({
    id: Id,
    yardId: Id,
    kind: LocationKind,
    name: z.string(),
    capacity: z.number().int(),
    status: ActiveStatus,
    plan: LocationPlan.nullable().openapi({ description: 'its place on the yard plan; null = not placed' }),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    version: z.number().int(),
  })
  .openapi('Location');

export const LocationCreate = z
  .object({
    kind: LocationKind,
    name: z.string().trim().min(1).max(80).openapi({ description: 'unique in the yard (case-insensitive)' }),
    capacity: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .openapi({ description: 'units it holds; default 1' }),
    status: ActiveStatus.optional(),
    plan: LocationPlan.nullable()
      .optional()
      .openapi({ description: 'its place on the yard plan; null or absent = not placed' }),
  })
  .strict()
  .openapi('LocationCreate', {
    description: 'A spot, door, zone or staging area of the yard.',
    example: { kind: 'door', name: 'Door 12', capacity: 1 },
  });

export const LocationPatch = LocationCreate.partial().openapi('LocationPatch', {
  description: 'Fields to change; the others keep their values. `plan: null` takes it off the yard plan.',
  example: { plan: { x: 12, y: 40, width: 3.7, height: 16, rotation: 90 } },
});

export const LocationParams = z.object({ id: Id, locationId: Id });

export const LocationListQuery = PageQuery.extend({
  ids: queryList(Id)
    .refine((ids) => ids === undefined || ids.length <= MAX_IDS, `at most ${MAX_IDS} ids`)
    .openapi({
      description: `only these locations of the yard (repeat or comma-separate, at most ${MAX_IDS}); others are left out`,
    }),
  kind: LocationKind.optional(),
  status: ActiveStatus.optional(),
  q: z.string().trim().min(1).max(80).optional().openapi({ description: 'name contains' }),
  free: QueryBool.optional().openapi({
    description:
      'true: active locations with room, i.e. holding fewer trailers than their capacity, counting the ' +
      'trailers on them and those an open yard task is bringing there (where the gate can send the next ' +
      'trailer); false: the full ones',
  }),
});

export type LocationOutT = z.infer<typeof LocationOut>;
export type LocationCreateT = z.infer<typeof LocationCreate>;
export type LocationPatchT = z.infer<typeof LocationPatch>;
export type LocationPlanT = z.infer<typeof LocationPlan>;
