import { Id, IsoDateTime, PageQuery } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';

export const GateDirection = z.enum(['in', 'out', 'both']);

export const RelayDriver = z.enum([
  'simulated',
  'gpio',
  'gpiod',
  'serial-lcus',
  'serial-numato',
  'serial-kmtronic',
  'serial-modbus',
]);

/** How the gate's relay is wired (shared/hardware.ts RelayBinding). */
export const RelayBindingIn = z
  .object({
    driver: RelayDriver,
    channel: z.number().int().min(0).max(1023).openapi({ description: 'relay channel or GPIO line' }),
    pulseMs: z.number().int().min(100).max(5000).default(500),
    activeLow: z.boolean().default(false),
    device: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: 'serial device path or GPIO chip, where the driver needs one' }),
  })
  .strict()
  .openapi('RelayBindingInput');

export const RelayBindingOut = z
  .object({
    driver: RelayDriver,
    channel: z.number().int(),
    pulseMs: z.number().int(),
    activeLow: z.boolean(),
    device: z.string().optional(),
  })
  .openapi('RelayBinding');

export const GateOut = z
  .object({
    id: Id,
    yardId: Id,
    name: z.string(),
    direction: GateDirection,
    relay: RelayBindingOut.nullable().openapi({ description: 'null: the gate has no relay (manual gate)' }),
    cameraIds: z.array(Id),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    version: z.number().int(),
  })
  .openapi('Gate');

const CameraIds = z
  .array(Id)
  .max(32)
  .refine((ids) => new Set(ids).size === ids.length, 'camera ids must not repeat');

export const GateCreate = z
  .object({
    name: z.string().trim().min(1).max(80).openapi({ description: 'unique in the yard (case-insensitive)' }),
    direction: GateDirection,
    relay: RelayBindingIn.nullable().optional(),
    cameraIds: CameraIds.optional(),
  })
  .strict()
  .openapi('GateCreate');

export const GatePatch = GateCreate.partial().openapi('GatePatch');

export const GateParams = z.object({ id: Id, gateId: Id });

export const GateListQuery = PageQuery.extend({ direction: GateDirection.optional() });

export type GateOutT = z.infer<typeof GateOut>;
export type GateCreateT = z.infer<typeof GateCreate>;
export type GatePatchT = z.infer<typeof GatePatch>;
