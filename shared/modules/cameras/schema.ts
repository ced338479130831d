import { CAMERA_SOURCES } from '../../enums.js';
import { httpUrl, Id, IsoDateTime, PageQuery, QueryBool } from '../../http/common-schemas.js';
import { EXAMPLE_ID } from '../../http/examples.js';
import { z } from '../../http/zod.js';

const HttpUrl = httpUrl(500, 'username and password');

const OnvifOut = z.object({
  xaddr: z.string(),
  username: z.string(),
  password: z.string().nullable().openapi({ description: 'always masked (********) when set' }),
  profileToken: z.string().nullable(),
  snapshotUri: z
    .string()
    .nullable()
    .openapi({ description: 'read from the camera; null until it was reached' }),
  device: z
    .object({
      manufacturer: z.string().nullable(),
      model: z.string().nullable(),
      firmwareVersion: z.string().nullable(),
      serialNumber: z.string().nullable(),
    })
    .nullable(),
});

const ProviderRef = z.object({
  integrationId: Id,
  providerCameraId: z.string().trim().min(1).max(200),
});

export const CameraOut = z
  .object({
    id: Id,
    yardId: Id,
    name: z.string(),
    gateId: Id.nullable().openapi({ description: 'the gate whose movements this camera photographs' }),
    enabled: z.boolean(),
    source: z.enum(CAMERA_SOURCES),
    onvif: OnvifOut.nullable(),
    provider: ProviderRef.nullable(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    version: z.number().int(),
  })
  .openapi('Camera');

const OnvifIn = z
  .object({
    xaddr: HttpUrl.openapi({
      description:
        'device service address, e.g. http://192.168.1.20/onvif/device_service. LAN addresses are fine; ' +
        'loopback and link-local ones (127.0.0.0/8, ::1, 169.254.0.0/16, fe80::/10) are refused (400 ' +
        'address-refused) unless the site setting network.allowLoopbackAndLinkLocal is true',
    }),
    username: z.string().min(1).max(100),
    password: z.string().min(1).max(200).openapi({ description: 'write-only' }),
    profileToken: z.string().trim().min(1).max(100).optional().openapi({
      description: 'media profile to take snapshots from; default the first profile with a snapshot URI',
    }),
  })
  .strict();

const Verify = z.boolean().default(true).openapi({
  description:
    'reach the camera now (read its profiles, or find it at the provider) and refuse the write if that fails; false registers a camera that is not online yet',
});

export const CameraCreate = z
  .object({
    yardId: Id,
    name: z.string().trim().min(1).max(80).openapi({ description: 'unique in the yard (case-insensitive)' }),
    gateId: Id.nullable().optional(),
    enabled: z.boolean().default(true),
    onvif: OnvifIn.optional(),
    provider: ProviderRef.strict().optional(),
    verify: Verify,
  })
  .strict()
  .refine((c) => (c.onvif ? 1 : 0) + (c.provider ? 1 : 0) === 1, {
    message: 'give exactly one source: onvif or provider',
    path: ['onvif'],
  })
  .openapi('CameraCreate', {
    description: 'A camera of the yard: an ONVIF camera on the yard LAN, or one of a provider integration.',
    example: {
      yardId: EXAMPLE_ID.yard,
      name: 'North gate plate camera',
      gateId: EXAMPLE_ID.gate,
      onvif: {
        xaddr: 'http://192.168.1.20/onvif/device_service',
        username: 'yard',
        password: 'camera-secret',
      },
    },
  });

export const CameraPatch = z
  .object({
    name: z.string().trim().min(1).max(80).optional(),
    gateId: Id.nullable().optional(),
    enabled: z.boolean().optional(),
    onvif: OnvifIn.partial()
      .strict()
      .optional()
      .openapi({
        description:
          'fields to change; a password left out or sent masked keeps the stored one, unless xaddr moves to ' +
          'another scheme, host or port: then the password must be sent again (400 secret-required on ' +
          'onvif.password), since a stored password is never sent to a new address',
      }),
    provider: ProviderRef.partial().strict().optional(),
    verify: Verify,
  })
  .strict()
  .openapi('CameraPatch', {
    description: 'Fields to change; the others keep their values.',
    example: { name: 'North gate overview', enabled: false, verify: false },
  });

export const CameraListQuery = PageQuery.extend({
  yardId: Id.optional(),
  gateId: Id.optional(),
  source: z.enum(CAMERA_SOURCES).optional(),
});

export const SnapshotQuery = z.object({
  store: QueryBool.optional().openapi({
    description: 'also keep the picture as an attachment (its id in the X-Attachment-Id header)',
  }),
});

export const DiscoverBody = z
  .object({
    timeoutMs: z
      .number()
      .int()
      .min(500)
      .max(10_000)
      .default(3000)
      .openapi({ description: 'how long to collect answers' }),
  })
  .strict()
  .openapi('CameraDiscoverRequest', {
    description: 'How long to listen for ONVIF cameras answering on the yard LAN.',
    example: { timeoutMs: 3000 },
  });

export const DiscoveredCameraOut = z
  .object({
    xaddr: z.string(),
    urn: z.string(),
    name: z.string().nullable(),
    hardware: z.string().nullable(),
    scopes: z.array(z.string()),
    registeredCameraIds: z
      .array(Id)
      .openapi({ description: 'yard cameras already registered at this address' }),
  })
  .openapi('DiscoveredCamera');

export const CameraProviderOut = z
  .object({
    kind: z.string(),
    title: z.string(),
    description: z.string(),
    integrations: z.array(z.object({ id: Id, name: z.string(), enabled: z.boolean() })),
  })
  .openapi('CameraProvider');

export const ProviderSnapshotParams = z.object({
  integrationId: Id,
  providerCameraId: z.string().min(1).max(200),
});

export type CameraOutT = z.infer<typeof CameraOut>;
export type CameraCreateT = z.infer<typeof CameraCreate>;
export type CameraPatchT = z.infer<typeof CameraPatch>;
export type CameraListQueryT = z.infer<typeof CameraListQuery>;
