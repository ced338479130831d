import { Id, IsoDateTime, PageQuery, QueryBool } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';
import { ActiveStatus } from './schema.js';

export const LocationKind = z.enum(['spot', 'door', 'zone', 'staging']);

export const LocationOut = z
  .object({
    id: Id,
    yardId: Id,
    kind: LocationKind,
    name: z.string(),
    capacity: z.number().int(),
    status: ActiveStatus,
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
  })
  .strict()
  .openapi('LocationCreate', {
    description: 'A spot, door, zone or staging area of the yard.',
    example: { kind: 'door', name: 'Door 12', capacity: 1 },
  });

export const LocationPatch = LocationCreate.partial().openapi('LocationPatch', {
  description: 'Fields to change; the others keep their values.',
  example: { status: 'inactive' },
});

export const LocationParams = z.object({ id: Id, locationId: Id });

export const LocationListQuery = PageQuery.extend({
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
