import { Id, IsoDateTime, PageQuery, QueryBool } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';

const Config = z.record(z.string(), z.unknown()).openapi({
  description:
    "The kind's settings; see GET /api/integration/camera-provider for each kind's schema. Secret fields read back masked as ********; send them masked or leave them out to keep the stored value, " +
    'except when a URL in the config points at a scheme, host or port the stored config did not have: then every kept secret must be sent again (400 secret-required), since a stored secret is never sent to a new address; ' +
    'likewise a secret whose auth type changes (auth.type digest to basic, say) must be sent again. ' +
    'URLs on loopback or link-local addresses are refused (400 address-refused) unless the site setting network.allowLoopbackAndLinkLocal is true.',
});

export const IntegrationOut = z
  .object({
    id: Id,
    kind: z.string(),
    name: z.string(),
    enabled: z.boolean(),
    config: Config,
    secretFields: z.array(z.string()).openapi({ description: 'config fields that are write-only' }),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    version: z.number().int(),
  })
  .openapi('Integration');

export const IntegrationCreate = z
  .object({
    kind: z.string().trim().min(1).max(60).openapi({ description: 'a camera provider kind' }),
    name: z.string().trim().min(1).max(120).openapi({ description: 'unique (case-insensitive)' }),
    enabled: z.boolean().default(true),
    config: Config,
  })
  .strict()
  .openapi('IntegrationCreate', {
    description: "A camera provider account; config follows the kind's schema.",
    example: {
      kind: 'http-snapshot',
      name: 'North gate NVR',
      config: {
        auth: { type: 'digest', username: 'yard', password: 'nvr-secret' },
        cameras: [
          {
            id: 'gate-1-in',
            name: 'Gate 1 inbound',
            snapshotUrl: 'http://192.168.1.20/cgi-bin/snapshot.cgi',
          },
        ],
      },
    },
  });

export const IntegrationPatch = z
  .object({
    name: z.string().trim().min(1).max(120).optional(),
    enabled: z.boolean().optional(),
    config: Config.optional().openapi({
      description:
        'replaces the config whole, except secrets left out or sent masked (kept, unless an address moved to a new host or the auth type changed)',
    }),
  })
  .strict()
  .openapi('IntegrationPatch', {
    description: 'Fields to change; the others keep their values.',
    example: { enabled: false },
  });

export const IntegrationListQuery = PageQuery.extend({
  kind: z.string().trim().min(1).max(60).optional(),
  enabled: QueryBool.optional(),
});

export const CameraProviderKindOut = z
  .object({
    kind: z.string(),
    title: z.string(),
    description: z.string(),
    configSchema: z.record(z.string(), z.unknown()).openapi({ description: 'JSON Schema of the config' }),
    secretFields: z.array(z.string()),
  })
  .openapi('CameraProviderKind');

export const ProviderCameraOut = z
  .object({
    integrationId: Id,
    integrationName: z.string(),
    kind: z.string(),
    id: z.string().openapi({ description: "the provider's camera id" }),
    name: z.string(),
    location: z.string().nullable(),
    online: z.boolean().nullable(),
    registeredCameraIds: z
      .array(Id)
      .openapi({ description: 'yard cameras registered for this provider camera' }),
  })
  .openapi('ProviderCamera');

export const ProviderFailureOut = z
  .object({ integrationId: Id, integrationName: z.string(), code: z.string(), detail: z.string() })
  .openapi('ProviderFailure');

export const ProviderCameraList = z
  .object({
    items: z.array(ProviderCameraOut),
    nextCursor: z.string().nullable(),
    failures: z.array(ProviderFailureOut).openapi({
      description: 'integrations that could not be asked (on every page); the others are still listed',
    }),
  })
  .openapi('ProviderCameraList');

export const IntegrationIdParams = z.object({ id: Id });

export type IntegrationOutT = z.infer<typeof IntegrationOut>;
export type IntegrationCreateT = z.infer<typeof IntegrationCreate>;
export type IntegrationPatchT = z.infer<typeof IntegrationPatch>;
export type ProviderCameraOutT = z.infer<typeof ProviderCameraOut>;
export type ProviderFailureOutT = z.infer<typeof ProviderFailureOut>;
