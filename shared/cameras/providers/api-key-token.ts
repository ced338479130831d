import { z } from '../../http/zod.js';
import type { OutboundPolicy } from '../../net/outbound-policy.js';
import { fetchImage } from '../http-image.js';
import type { CameraProviderKind, ProviderCamera, Snapshot } from '../types.js';
import { providerUrl, secret } from './config-fields.js';
import { Deadline } from './deadline.js';
import { rewrapImageError } from './image-errors.js';
import { requestJson } from './json-client.js';
import { type Step, urlForMessage } from './step-errors.js';
import { type CameraPage, TokenApiProvider } from './token-api.js';
import { type IssuedToken, refreshAt } from './token-cache.js';

const KIND = 'api-key-token';

/** The vendor documents 30-minute tokens and returns no expiry; we assume that lifetime. */
export const DEFAULT_TOKEN_LIFETIME_MS = 30 * 60_000;
const READ_HINT = 'Check that the API key has camera read permission.';

export const ApiKeyTokenConfig = z
  .object({
    baseUrl: providerUrl(
      'API root of the provider, for the region the organisation lives in (no trailing path).',
      'https://api.verkada.com',
    ),
    apiKey: secret('API key created in the provider admin console, with read access to cameras.'),
    resolution: z.enum(['low-res', 'hi-res']).default('low-res').meta({
      description: 'Thumbnail resolution to ask for: low-res is faster, hi-res reads plates better.',
    }),
    pageSize: z
      .number()
      .int()
      .min(1)
      .max(200)
      .default(100)
      .meta({ description: 'Cameras per page when listing (the provider allows up to 200).' }),
  })
  .strict()
  .openapi('ApiKeyTokenProviderConfig')
  .meta({
    description: 'A cloud camera API where an API key is exchanged for a short-lived token.',
  });

export type ApiKeyTokenConfig = z.infer<typeof ApiKeyTokenConfig>;

const TokenAnswer = z.object({
  token: z.string().min(1),
  /** Not sent by the vendor this follows; honoured if a compatible provider sends it. */
  expires_in: z.number().positive().optional(),
});

const DevicesAnswer = z.object({
  cameras: z.array(
    z.looseObject({
      camera_id: z.string().min(1),
      name: z.string().nullish(),
      site: z.string().nullish(),
      location: z.string().nullish(),
      status: z.string().nullish(),
    }),
  ),
  next_page_token: z.union([z.string(), z.number()]).nullish(),
});

/** API key in, short-lived token out, token on every data call; shaped like Verkada's public API. */
export const apiKeyTokenKind: CameraProviderKind<ApiKeyTokenConfig> = {
  kind: KIND,
  title: 'Cloud API: API key exchanged for a short-lived token',
  description:
    "Follows the shape of Verkada's public API: POST {baseUrl}/token with the x-api-key header returns a " +
    'token valid for about 30 minutes, sent as x-verkada-auth on GET {baseUrl}/cameras/v1/devices (paged ' +
    'with page_token) and GET {baseUrl}/cameras/v1/footage/thumbnails/latest?camera_id=..., which ' +
    'returns the latest JPEG. The token is cached until a minute before it expires.',
  configSchema: ApiKeyTokenConfig,
  secretFields: ['apiKey'],
  connect: (config, deps) => new ApiKeyTokenProvider(config, deps.now, deps.policy),
};

class ApiKeyTokenProvider extends TokenApiProvider {
  constructor(
    private readonly config: ApiKeyTokenConfig,
    now: () => number,
    policy: OutboundPolicy,
  ) {
    super(KIND, config.baseUrl, [config.apiKey], now, policy);
  }

  protected async listPage(
    pageToken: string | undefined,
    page: number,
    deadline: Deadline,
  ): Promise<CameraPage> {
    const url = new URL(`${this.base}/cameras/v1/devices`);
    url.searchParams.set('page_size', String(this.config.pageSize));
    if (pageToken) url.searchParams.set('page_token', pageToken);
    const answer = await this.requestWithToken(deadline, {
      method: 'GET',
      url: url.href,
      step: this.step(`listing cameras (page ${page}) from ${urlForMessage(url.href)}`),
      schema: DevicesAnswer,
      unauthorizedHint: READ_HINT,
    });
    const next = answer.next_page_token == null ? '' : String(answer.next_page_token);
    return { cameras: answer.cameras.map(toProviderCamera), next };
  }

  async snapshot(providerCameraId: string, opts: { timeoutMs: number }): Promise<Snapshot> {
    const deadline = Deadline.after(opts.timeoutMs);
    const url = new URL(`${this.base}/cameras/v1/footage/thumbnails/latest`);
    url.searchParams.set('camera_id', providerCameraId);
    url.searchParams.set('resolution', this.config.resolution);
    const step = this.step(
      `fetching the latest thumbnail of camera ${JSON.stringify(providerCameraId)} from ${urlForMessage(url.href)}`,
    );
    return this.withAuth(deadline, async (headers) => {
      try {
        return await fetchImage(url.href, {
          timeoutMs: Math.max(1, deadline.remainingMs()),
          policy: this.policy,
          headers,
        });
      } catch (e) {
        throw rewrapImageError(e, {
          step,
          redactor: this.redactor,
          url: url.href,
          unauthorizedHint: READ_HINT,
          notFoundMeansUnknownCamera: true,
        });
      }
    });
  }

  protected tokenStep(): Step {
    return this.step(`getting an API token from ${urlForMessage(`${this.base}/token`)}`);
  }

  protected authHeaders(token: string): Record<string, string> {
    return { 'x-verkada-auth': token };
  }

  protected async issueToken(deadline: Deadline, step: Step): Promise<IssuedToken> {
    const issuedAt = this.now();
    const answer = await requestJson({
      policy: this.policy,
      method: 'POST',
      url: `${this.base}/token`,
      headers: { 'x-api-key': this.config.apiKey },
      deadline,
      step,
      redactor: this.redactor,
      schema: TokenAnswer,
      unauthorizedHint:
        'Check the API key in the integration settings: it may be mistyped, revoked or expired, ' +
        'or created for another region than the base URL.',
    });
    this.redactor.add(answer.token);
    const lifetimeMs = answer.expires_in ? answer.expires_in * 1000 : DEFAULT_TOKEN_LIFETIME_MS;
    return { value: answer.token, refreshAtMs: refreshAt(issuedAt, lifetimeMs) };
  }
}

function toProviderCamera(c: z.infer<typeof DevicesAnswer>['cameras'][number]): ProviderCamera {
  const where = [c.site, c.location].filter((s): s is string => typeof s === 'string' && s.trim() !== '');
  const status = c.status?.toLowerCase();
  return {
    id: c.camera_id,
    name: c.name?.trim() || c.camera_id,
    location: where.length > 0 ? where.join(', ') : null,
    online: status?.startsWith('live') || status === 'online' ? true : status === 'offline' ? false : null,
  };
}
