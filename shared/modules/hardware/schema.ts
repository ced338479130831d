import { ACTUATION_RESULTS, GATE_DRIVER_STATES } from '../../enums.js';
import { Id, IsoDateTime, PageQuery } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';

export const ActuationResult = z.enum(ACTUATION_RESULTS);

export const GateActuationOut = z
  .object({
    id: Id,
    gateId: Id,
    yardId: Id,
    requestedBy: z.string().nullable(),
    requestedVia: z.enum(['local', 'cloud']),
    reason: z.string().nullable(),
    at: IsoDateTime,
    result: ActuationResult,
    durationMs: z.number().int().nullable().openapi({
      description:
        'how long the relay was held (energised to de-energised); null while the pulse runs, for refusals and faults',
    }),
    error: z.string().nullable().openapi({ description: 'why it was refused or what the driver reported' }),
    movementId: Id.nullable().openapi({ description: 'the gate movement that asked for it, if any' }),
    createdAt: IsoDateTime,
  })
  .openapi('GateActuation');

export const ActuateBody = z
  .object({ reason: z.string().trim().min(1).max(500).optional() })
  .strict()
  .openapi('GateActuateRequest', {
    description: 'Why the gate is opened by hand (recorded with the actuation).',
    example: { reason: 'driver at the barrier, plate unreadable' },
  });

export const GateIdParams = z.object({ gateId: Id });

export const ActuationListQuery = PageQuery.extend({ result: ActuationResult.optional() });

const DriverState = z.enum(GATE_DRIVER_STATES).openapi({
  description: 'ok: device open; fault: device failed (retried in the background); opening: being opened',
});

/** One gate's driver as the relay hardware reports it (/readyz shows only counts by state). */
export const GateDriverStatusOut = z
  .object({
    gateId: z.string(),
    driver: z.string(),
    device: z.string().optional(),
    channel: z.number().int(),
    state: DriverState,
    error: z.string().optional().openapi({ description: 'what the driver last reported when in fault' }),
    pulses: z.number().int().openapi({ description: 'pulses since the edge started' }),
  })
  .openapi('GateDriverStatus');

export const HardwareStatusOut = z
  .object({
    drivers: z.array(GateDriverStatusOut),
    serialPorts: z
      .array(
        z.object({
          path: z.string(),
          manufacturer: z.string().optional(),
          serialNumber: z.string().optional(),
          vendorId: z.string().optional(),
          productId: z.string().optional(),
        }),
      )
      .openapi({
        description: 'serial ports the edge can see, for relay.device (prefer /dev/serial/by-id paths)',
      }),
    gates: z.array(
      z.object({
        gateId: Id,
        yardId: Id,
        name: z.string(),
        driver: z.string(),
        channel: z.number().int(),
        state: z.enum([...GATE_DRIVER_STATES, 'idle']).openapi({
          description: "the driver's state for this gate; idle: not pulsed since start",
        }),
        busy: z.boolean(),
        lastActuation: z
          .object({ at: IsoDateTime, result: ActuationResult, error: z.string().nullable() })
          .nullable(),
      }),
    ),
  })
  .openapi('HardwareStatus');

export type GateActuationOutT = z.infer<typeof GateActuationOut>;
export type HardwareStatusOutT = z.infer<typeof HardwareStatusOut>;
