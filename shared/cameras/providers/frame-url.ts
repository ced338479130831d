import { z } from '../../http/zod.js';
import type { OutboundPolicy } from '../../net/outbound-policy.js';
import { fetchImage } from '../http-image.js';
import type { CameraError, CameraProviderKind, Snapshot } from '../types.js';
import { credentialName, providerUrl, secret } from './config-fields.js';
import { Deadline } from './deadline.js';
import { rewrapImageError } from './image-errors.js';
import { requestJson } from './json-client.js';
import { isCameraError, type SecretRedactor, type Step, stepError, urlForMessage } from './step-errors.js';
import { type CameraPage, TokenApiProvider } from './token-api.js';
import { type IssuedToken, refreshAt } from './token-cache.js';

const KIND = 'frame-url';

/** RFC 6749 recommends expires_in but does not require it; without one, assume a short life. */
export const DEFAULT_ACCESS_TOKEN_LIFETIME_MS = 10 * 60_000;
/** The signed URL may answer 404 for a moment while the frame is being produced; poll this often. */
const FRAME_POLL_MS = [200, 400, 800, 1000] as const;

export const FrameUrlConfig = z
  .object({
    baseUrl: providerUrl('API root of the provider (no trailing path).', 'https://api.camera-cloud.example'),
    tokenUrl: providerUrl(
      'OAuth 2.0 token endpoint. Default: {baseUrl}/oauth/token.',
      'https://auth.camera-cloud.example/oauth/token',
    ).optional(),
    clientId: credentialName('OAuth 2.0 client id of the API client created for this yard service.'),
    clientSecret: secret('OAuth 2.0 client secret of that API client.'),
    scope: z.string().trim().max(512).optional().meta({
      description: 'Space-separated scopes to ask for, if the provider needs any.',
      example: 'cameras.read',
    }),
  })
  .strict()
  .openapi('FrameUrlProviderConfig')
  .meta({
    description: 'A cloud camera API that answers a snapshot request with a short-lived signed image URL.',
  });

export type FrameUrlConfig = z.infer<typeof FrameUrlConfig>;

const TokenAnswer = z.object({
  access_token: z.string().min(1),
  token_type: z.string().refine((t) => t.toLowerCase() === 'bearer', 'must be Bearer'),
  expires_in: z.number().positive().optional(),
});

const CamerasAnswer = z.object({
  cameras: z.array(
    z.looseObject({
      id: z.string().min(1),
      name: z.string().nullish(),
      location: z.string().nullish(),
      online: z.boolean().nullish(),
    }),
  ),
  nextCursor: z.string().nullish(),
});

const FrameAnswer = z.object({
  url: z.string().min(1),
  expiresAt: z.string().nullish(),
});

/** OAuth 2.0 client credentials, then "ask for a frame URL, then fetch it". */
export const frameUrlKind: CameraProviderKind<FrameUrlConfig> = {
  kind: KIND,
  title: 'Cloud API: request a signed frame URL, then fetch it',
  description:
    'An OAuth 2.0 client-credentials token (RFC 6749 section 4.4, client authenticated with HTTP Basic) ' +
    'from {tokenUrl}, then GET {baseUrl}/cameras (paged with cursor/nextCursor) and, per snapshot, ' +
    'POST {baseUrl}/cameras/{id}/snapshot returning { url, expiresAt } of a short-lived signed image URL ' +
    "that is fetched without credentials. The frame flow follows Cisco Meraki's generateSnapshot (the URL " +
    'may answer 404 for a moment until the frame is ready, so it is polled within the timeout).',
  configSchema: FrameUrlConfig,
  secretFields: ['clientSecret'],
  connect: (config, deps) => new FrameUrlProvider(config, deps.now, deps.policy),
};

class FrameUrlProvider extends TokenApiProvider {
  private readonly tokenUrl: string;

  constructor(
    private readonly config: FrameUrlConfig,
    now: () => number,
    policy: OutboundPolicy,
  ) {
    super(KIND, config.baseUrl, [config.clientSecret], now, policy);
    this.tokenUrl = config.tokenUrl ?? `${this.base}/oauth/token`;
  }

  protected async listPage(
    cursor: string | undefined,
    page: number,
    deadline: Deadline,
  ): Promise<CameraPage> {
    const url = new URL(`${this.base}/cameras`);
    if (cursor) url.searchParams.set('cursor', cursor);
    const answer = await this.requestWithToken(deadline, {
      method: 'GET',
      url: url.href,
      step: this.step(`listing cameras (page ${page}) from ${urlForMessage(url.href)}`),
      schema: CamerasAnswer,
      unauthorizedHint: 'Check that the API client is allowed to read cameras (its scopes).',
    });
    const cameras = answer.cameras.map((c) => ({
      id: c.id,
      name: c.name?.trim() || c.id,
      location: c.location ?? null,
      online: c.online ?? null,
    }));
    return { cameras, next: answer.nextCursor ?? undefined };
  }

  async snapshot(providerCameraId: string, opts: { timeoutMs: number }): Promise<Snapshot> {
    const deadline = Deadline.after(opts.timeoutMs);
    const frameRequestUrl = `${this.base}/cameras/${encodeURIComponent(providerCameraId)}/snapshot`;
    const frame = await this.requestWithToken(deadline, {
      method: 'POST',
      url: frameRequestUrl,
      body: { json: {} },
      step: this.step(
        `requesting a frame URL for camera ${JSON.stringify(providerCameraId)} from ${urlForMessage(frameRequestUrl)}`,
      ),
      schema: FrameAnswer,
      unauthorizedHint: 'Check that the API client is allowed to take snapshots (its scopes).',
      notFoundMeansUnknownCamera: true,
    });
    return this.fetchFrame(providerCameraId, frame, deadline);
  }

  protected tokenStep(): Step {
    return this.step(`getting an OAuth access token from ${urlForMessage(this.tokenUrl)}`);
  }

  protected authHeaders(token: string): Record<string, string> {
    return { authorization: `Bearer ${token}` };
  }

  /**
   * GETs the signed URL with no credentials (it carries its own signature). Until the provider has
   * produced the frame the URL answers 404, so 404 is retried with short pauses within the budget.
   */
  private async fetchFrame(
    cameraId: string,
    frame: z.infer<typeof FrameAnswer>,
    deadline: Deadline,
  ): Promise<Snapshot> {
    let url: URL;
    try {
      url = new URL(frame.url, `${this.base}/`);
    } catch {
      throw stepError(
        this.step(`reading the frame URL for camera ${JSON.stringify(cameraId)}`),
        'bad-response',
        'the provider returned a frame URL that is not a URL',
        'Check that the integration kind matches the provider and API version.',
        this.redactor,
      );
    }
    // The signed URL is a credential until it expires: keep it, and its path, out of messages.
    const label = `the signed frame URL on ${url.host}`;
    const redactor = this.redactor.with(url.href, url.search.slice(1));
    const step = this.step(`fetching the frame of camera ${JSON.stringify(cameraId)} from ${label}`);
    for (let attempt = 0; ; attempt++) {
      try {
        return await fetchImage(url.href, {
          timeoutMs: Math.max(1, deadline.remainingMs()),
          policy: this.policy,
        });
      } catch (e) {
        if (!isCameraError(e)) throw e;
        if (e.status === 404 && !deadline.expired()) {
          await deadline.sleep(FRAME_POLL_MS[Math.min(attempt, FRAME_POLL_MS.length - 1)]!);
          if (!deadline.expired()) continue;
        }
        throw this.frameError(e, step, redactor, url.href, frame.expiresAt);
      }
    }
  }

  private frameError(
    e: CameraError,
    step: Step,
    redactor: SecretRedactor,
    url: string,
    expiresAt: string | null | undefined,
  ): unknown {
    if (e.failure === 'unauthorized') {
      const expiry = expiresAt ? ` (it was to expire at ${expiresAt})` : '';
      return stepError(
        step,
        'bad-response',
        `the signed URL was refused (HTTP ${e.status ?? 403})${expiry}`,
        "Check this site's clock (NTP): signed URLs are refused when the clocks disagree.",
        redactor,
        e.status,
      );
    }
    if (e.status === 404) {
      return stepError(
        step,
        'timeout',
        'the frame was still not ready (HTTP 404) when the timeout ran out',
        'The provider is slow to produce frames; raise the snapshot timeout or try again.',
        redactor,
        404,
      );
    }
    return rewrapImageError(e, {
      step,
      redactor,
      url,
      unauthorizedHint: 'Check the integration credentials.',
    });
  }

  protected async issueToken(deadline: Deadline, step: Step): Promise<IssuedToken> {
    const issuedAt = this.now();
    // RFC 6749 section 2.3.1: id and secret are form-urlencoded before Basic encoding.
    const basic = Buffer.from(
      `${encodeURIComponent(this.config.clientId)}:${encodeURIComponent(this.config.clientSecret)}`,
    ).toString('base64');
    this.redactor.add(basic);
    const form: Record<string, string> = { grant_type: 'client_credentials' };
    if (this.config.scope) form.scope = this.config.scope;
    const answer = await requestJson({
      policy: this.policy,
      method: 'POST',
      url: this.tokenUrl,
      headers: { authorization: `Basic ${basic}` },
      body: { form },
      deadline,
      step,
      redactor: this.redactor,
      schema: TokenAnswer,
      // RFC 6749 section 5.2: a refused client may also be a 400 with one of these error codes.
      isRefusal: (status, body) =>
        status === 400 &&
        ['invalid_client', 'unauthorized_client', 'invalid_scope'].includes(oauthError(body)),
      unauthorizedHint:
        'Check the client id and client secret in the integration settings: the secret may be mistyped, ' +
        'rotated or revoked.',
    });
    this.redactor.add(answer.access_token);
    const lifetimeMs = answer.expires_in ? answer.expires_in * 1000 : DEFAULT_ACCESS_TOKEN_LIFETIME_MS;
    return { value: answer.access_token, refreshAtMs: refreshAt(issuedAt, lifetimeMs) };
  }
}

function oauthError(body: unknown): string {
  const error = body && typeof body === 'object' ? (body as { error?: unknown }).error : undefined;
  return typeof error === 'string' ? error : '';
}
