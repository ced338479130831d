import { Id, IsoDateTime, PageQuery } from '../../http/common-schemas.js';
import { EXAMPLE_ID } from '../../http/examples.js';
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

/** Channel numbering differs per board (shared/hardware.ts RelayBinding.channel). */
const CHANNEL_RANGE: Record<z.infer<typeof RelayDriver>, [number, number]> = {
  simulated: [0, 1023],
  gpio: [0, 1023],
  gpiod: [0, 1023],
  'serial-lcus': [1, 255],
  'serial-numato': [0, 31],
  'serial-kmtronic': [1, 255],
  'serial-modbus': [0, 65_535],
};

/** How the gate's relay is wired (shared/hardware.ts RelayBinding). */
export const RelayBindingIn = z
  .object({
    driver: RelayDriver,
    channel: z
      .number()
      .int()
      .min(0)
      .max(65_535)
      .openapi({
        description:
          'gpio/gpiod: line offset on the chip; serial-lcus, serial-kmtronic: relay number from 1; ' +
          'serial-numato: relay index from 0 (0-31); serial-modbus: coil address from 0',
      }),
    pulseMs: z.number().int().min(100).max(5000).default(500),
    activeLow: z
      .boolean()
      .default(false)
      .openapi({ description: 'gpio/gpiod: the relay energises on a low output' }),
    device: z.string().trim().min(1).max(200).optional().openapi({
      description:
        'serial-*: the serial device (prefer /dev/serial/by-id/...); gpio/gpiod: the GPIO chip label or name (default: the header chip)',
    }),
    baudRate: z
      .number()
      .int()
      .refine(
        (n) => [1200, 2400, 4800, 9600, 19_200, 38_400, 57_600, 115_200].includes(n),
        'not a standard baud rate',
      )
      .optional()
      .openapi({ description: 'serial-*: line speed, default 9600' }),
    unitId: z
      .number()
      .int()
      .min(1)
      .max(247)
      .optional()
      .openapi({ description: 'serial-modbus: unit address, default 1' }),
  })
  .strict()
  .superRefine((relay, ctx) => {
    const [min, max] = CHANNEL_RANGE[relay.driver];
    if (relay.channel < min || relay.channel > max) {
      ctx.addIssue({
        code: 'custom',
        path: ['channel'],
        message: `${relay.driver} channels are ${min} to ${max}`,
      });
    }
    if (relay.driver.startsWith('serial-') && !relay.device) {
      ctx.addIssue({
        code: 'custom',
        path: ['device'],
        message: `${relay.driver} needs the serial device path`,
      });
    }
    if (relay.unitId !== undefined && relay.driver !== 'serial-modbus') {
      ctx.addIssue({ code: 'custom', path: ['unitId'], message: 'only serial-modbus has a unit address' });
    }
    if (relay.baudRate !== undefined && !relay.driver.startsWith('serial-')) {
      ctx.addIssue({ code: 'custom', path: ['baudRate'], message: 'only serial boards have a baud rate' });
    }
  })
  .openapi('RelayBindingInput');

export const RelayBindingOut = z
  .object({
    driver: RelayDriver,
    channel: z.number().int(),
    pulseMs: z.number().int(),
    activeLow: z.boolean(),
    device: z.string().optional(),
    baudRate: z.number().int().optional(),
    unitId: z.number().int().optional(),
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
  .openapi('GateCreate', {
    description: 'A gate of the yard; relay null or left out: a manual gate with no relay.',
    example: {
      name: 'North in-gate',
      direction: 'in',
      relay: { driver: 'serial-lcus', channel: 1, pulseMs: 500, device: '/dev/serial/by-id/usb-relay-board' },
      cameraIds: [EXAMPLE_ID.camera],
    },
  });

export const GatePatch = GateCreate.partial().openapi('GatePatch', {
  description: 'Fields to change; relay null removes the relay (the gate becomes manual).',
  example: { direction: 'both', relay: { driver: 'simulated', channel: 2, pulseMs: 800 } },
});

export const GateParams = z.object({ id: Id, gateId: Id });

export const GateListQuery = PageQuery.extend({ direction: GateDirection.optional() });

export type GateOutT = z.infer<typeof GateOut>;
export type GateCreateT = z.infer<typeof GateCreate>;
export type GatePatchT = z.infer<typeof GatePatch>;
