import { z } from '../../http/zod.js';
import type { OutboundPolicy } from '../../net/outbound-policy.js';
import { fetchImage } from '../http-image.js';
import type { CameraError, CameraProvider, CameraProviderKind, ProviderCamera, Snapshot } from '../types.js';
import { credentialName, providerUrl, secret } from './config-fields.js';
import { droppedConnection, withoutUrl } from './image-errors.js';
import { HINTS, isCameraError, SecretRedactor, type Step, stepError, urlForMessage } from './step-errors.js';

const KIND = 'http-snapshot';

const AuthNone = z.object({ type: z.literal('none') }).meta({ description: 'No authentication.' });
const AuthBasic = z
  .object({
    type: z.literal('basic'),
    username: credentialName('User name for HTTP Basic authentication.'),
    password: secret('Password for HTTP Basic authentication.'),
  })
  .meta({ description: 'HTTP Basic (RFC 7617); use only over https or on a trusted LAN.' });
const AuthDigest = z
  .object({
    type: z.literal('digest'),
    username: credentialName('User name for HTTP Digest authentication.'),
    password: secret('Password for HTTP Digest authentication.'),
  })
  .meta({ description: 'HTTP Digest (RFC 7616), what most IP cameras ask for.' });
const AuthBearer = z
  .object({ type: z.literal('bearer'), token: secret('Bearer token sent as Authorization: Bearer.') })
  .meta({ description: 'A static bearer token (RFC 6750).' });

const SnapshotCamera = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, 'use 1 to 64 letters, digits, dot, dash or underscore')
      .meta({ description: 'Our id for this camera within the integration.', example: 'gate-1-in' }),
    name: z.string().trim().min(1).max(200).meta({ description: 'Display name.', example: 'Gate 1 inbound' }),
    snapshotUrl: providerUrl(
      'URL that answers GET with a JPEG of the current view. No credentials in the URL; use auth.',
      'http://192.168.1.20/cgi-bin/snapshot.cgi',
    ),
    location: z
      .string()
      .trim()
      .max(200)
      .optional()
      .meta({ description: 'Where the camera is, free text.', example: 'North gate' }),
  })
  .strict();

export const HttpSnapshotConfig = z
  .object({
    auth: z
      .discriminatedUnion('type', [AuthNone, AuthBasic, AuthDigest, AuthBearer])
      .meta({ description: 'How every snapshot URL of this integration authenticates.' }),
    cameras: z
      .array(SnapshotCamera)
      .min(1)
      .max(200)
      .meta({ description: 'The cameras, each with its own snapshot URL.' }),
  })
  .strict()
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    config.cameras.forEach((camera, i) => {
      if (seen.has(camera.id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['cameras', i, 'id'],
          message: `camera id ${camera.id} is used twice`,
        });
      }
      seen.add(camera.id);
    });
  })
  .openapi('HttpSnapshotProviderConfig')
  .meta({
    description: 'Cameras that serve a JPEG at a fixed URL (most IP cameras and NVRs have one).',
  });

export type HttpSnapshotConfig = z.infer<typeof HttpSnapshotConfig>;

/** The generic provider: a configured list of snapshot URLs sharing one auth setting. */
export const httpSnapshotKind: CameraProviderKind<HttpSnapshotConfig> = {
  kind: KIND,
  title: 'HTTP snapshot URLs',
  description:
    'Generic: each camera has a URL that answers GET with a JPEG, behind no auth, HTTP Basic, HTTP ' +
    'Digest or a bearer token. Use it for IP cameras and NVRs that are not ONVIF, or for a ' +
    "vendor's still-image endpoint.",
  configSchema: HttpSnapshotConfig,
  secretFields: ['auth.password', 'auth.token'],
  connect: (config, deps) => new HttpSnapshotProvider(config, deps.policy),
};

class HttpSnapshotProvider implements CameraProvider {
  private readonly redactor: SecretRedactor;

  constructor(
    private readonly config: HttpSnapshotConfig,
    private readonly policy: OutboundPolicy,
  ) {
    const { auth } = config;
    this.redactor = new SecretRedactor([
      auth.type === 'basic' || auth.type === 'digest' ? auth.password : undefined,
      auth.type === 'bearer' ? auth.token : undefined,
    ]);
  }

  async listCameras(): Promise<ProviderCamera[]> {
    return this.config.cameras.map((c) => ({
      id: c.id,
      name: c.name,
      location: c.location ?? null,
      online: null,
    }));
  }

  async snapshot(providerCameraId: string, opts: { timeoutMs: number }): Promise<Snapshot> {
    const camera = this.config.cameras.find((c) => c.id === providerCameraId);
    const step: Step = {
      kind: KIND,
      action: `fetching the snapshot of camera ${JSON.stringify(providerCameraId)}`,
    };
    if (!camera) {
      throw stepError(
        step,
        'not-found',
        'no camera with this id is configured',
        HINTS.notFound,
        this.redactor,
      );
    }
    step.action = `fetching the snapshot of camera ${camera.id} from ${urlForMessage(camera.snapshotUrl)}`;
    try {
      return await fetchImage(camera.snapshotUrl, {
        auth: this.config.auth,
        timeoutMs: opts.timeoutMs,
        policy: this.policy,
      });
    } catch (e) {
      if (!isCameraError(e)) throw e;
      throw stepError(
        step,
        droppedConnection(e) ? 'unreachable' : e.failure,
        withoutUrl(e.message, camera.snapshotUrl, 'the camera'),
        hintFor(e),
        this.redactor,
        e.status,
      );
    }
  }
}

/**
 * fetchImage words its errors for exactly this case, a camera at a URL, and most of them already
 * say what to check; the others get one here.
 */
function hintFor(e: CameraError): string {
  if (e.failure === 'address-refused') return '';
  if (droppedConnection(e)) return HINTS.unreachable;
  if (/\b(check|configure|set the auth type)\b/i.test(e.message)) return '';
  if (e.failure === 'timeout') return HINTS.timeout;
  return 'Open the snapshot URL in a browser from this site to see what the camera answers.';
}
