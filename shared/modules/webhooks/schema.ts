import { Id, IsoDateTime, IsoDateTimeMs, PageQuery, queryList } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from './event-types.js';

export const WebhookEventTypeEnum = z.enum(WEBHOOK_EVENT_TYPES).openapi('WebhookEventType');

const Url = z
  .url({ protocol: /^https$/, hostname: /./, error: 'must be an https:// URL with a host' })
  .max(2000)
  .refine((u) => {
    if (!URL.canParse(u)) return true;
    const parsed = new URL(u);
    return parsed.username === '' && parsed.password === '';
  }, 'must not contain a user name or password: receivers check the signature instead')
  .openapi({
    description:
      'https on a public address, as push endpoints (docs/security.md): loopback, private, link-local and other special addresses, or a name resolving to one, are refused (400 address-refused)',
    example: 'https://tms.example.com/hooks/yard',
  });

const Events = z
  .array(WebhookEventTypeEnum)
  .min(1, 'choose at least one event type')
  .max(WEBHOOK_EVENT_TYPES.length)
  .refine((e) => new Set(e).size === e.length, 'each event type once')
  .openapi({ description: 'the event types sent to this endpoint' });

const YardIds = z.array(Id).min(1).max(200).nullable().openapi({
  description: "only these yards' events; null = every yard (an admin without a yard scope only)",
});

const CarrierIds = z.array(Id).min(1).max(200).nullable().openapi({
  description: "only these carriers' events (a carrier's TMS gets only its own); null = every carrier",
});

export const WebhookEndpointCreate = z
  .object({
    url: Url,
    description: z.string().trim().max(500).optional(),
    events: Events,
    yardIds: YardIds.optional(),
    carrierIds: CarrierIds.optional(),
    enabled: z.boolean().default(true),
  })
  .strict()
  .openapi('WebhookEndpointCreate', {
    description:
      'A receiver of signed webhooks: where, which event types, and optionally only some yards or carriers.',
    example: {
      url: 'https://tms.example.com/hooks/yard',
      description: 'Our TMS',
      events: ['appointment.created', 'appointment.changed', 'appointment.cancelled'],
    },
  });

export const WebhookEndpointPatch = z
  .object({
    url: Url.optional(),
    description: z.string().trim().max(500).nullable().optional(),
    events: Events.optional(),
    yardIds: YardIds.optional(),
    carrierIds: CarrierIds.optional(),
    enabled: z.boolean().optional(),
    rotateSecret: z
      .literal(true)
      .optional()
      .openapi({ description: 'a new signing secret, shown once in the answer; the old one stops at once' }),
  })
  .strict()
  .openapi('WebhookEndpointPatch', {
    description:
      'Fields to change; the others keep their values. rotateSecret: true makes a new signing secret.',
    example: { enabled: false },
  });

export const WebhookEndpointHealth = z.object({
  pending: z.number().int().openapi({ description: 'deliveries waiting (first try or a retry)' }),
  failed: z.number().int().openapi({ description: 'deliveries given up after 24 h (replayable)' }),
  lastDeliveredAt: IsoDateTime.nullable(),
  lastError: z.string().nullable().openapi({ description: 'the answer of the latest failed attempt' }),
});

export const WebhookEndpointOut = z
  .object({
    id: Id,
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(WebhookEventTypeEnum),
    yardIds: z.array(Id).nullable(),
    carrierIds: z.array(Id).nullable(),
    enabled: z.boolean(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    version: z.number().int(),
    health: WebhookEndpointHealth,
  })
  .openapi('WebhookEndpoint');

export const WebhookEndpointWithSecret = WebhookEndpointOut.extend({
  secret: z.string().optional().openapi({
    description:
      "the signing secret ('whsec_' + base64), only in the answer that creates it or rotates it: store it now, it is never shown again",
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  }),
}).openapi('WebhookEndpointWithSecret');

export const WebhookEndpointParams = z.object({ id: Id });
export const WebhookDeliveryParams = z.object({ id: Id, deliveryId: Id });

export const WebhookAttemptOut = z
  .object({
    n: z.number().int().openapi({ description: '1 for the first attempt' }),
    at: IsoDateTime,
    durationMs: z.number().int().nullable(),
    httpStatus: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "the receiver's status; null when none came" }),
    error: z
      .string()
      .nullable()
      .openapi({ description: 'why no answer came (refused address, timeout, connection)' }),
    responseBody: z.string().nullable().openapi({ description: "the first 2 KiB of the receiver's answer" }),
    replay: z.boolean(),
  })
  .openapi('WebhookAttempt');

export const WebhookDeliveryOut = z
  .object({
    id: Id,
    endpointId: Id,
    webhookId: z
      .string()
      .openapi({ description: 'the webhook-id header: the same on every attempt and replay' }),
    type: WebhookEventTypeEnum,
    resourceKey: z.string().openapi({ example: 'appointment:01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f' }),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.array(WebhookAttemptOut),
    createdAt: IsoDateTime,
    nextAttemptAt: IsoDateTime.nullable().openapi({
      description: 'when pending: the next attempt (not before)',
    }),
    deliveredAt: IsoDateTime.nullable(),
    giveUpAt: IsoDateTime,
    payload: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'the body sent: {type, timestamp, data}' }),
  })
  .openapi('WebhookDelivery');

export const WebhookDeliveryListQuery = PageQuery.extend({
  status: queryList(z.enum(DELIVERY_STATUSES)),
  type: queryList(WebhookEventTypeEnum),
  resourceKey: z.string().max(200).optional(),
  from: IsoDateTimeMs.optional().openapi({ description: 'created at or after' }),
  to: IsoDateTimeMs.optional().openapi({ description: 'created before' }),
});

export type WebhookEndpointCreateT = z.output<typeof WebhookEndpointCreate>;
export type WebhookEndpointPatchT = z.output<typeof WebhookEndpointPatch>;
export type WebhookEndpointOutT = z.input<typeof WebhookEndpointOut>;
export type WebhookEndpointWithSecretT = z.input<typeof WebhookEndpointWithSecret>;
export type WebhookDeliveryOutT = z.input<typeof WebhookDeliveryOut>;
export type WebhookAttemptOutT = z.input<typeof WebhookAttemptOut>;
export type WebhookDeliveryListQueryT = z.output<typeof WebhookDeliveryListQuery>;
