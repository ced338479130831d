import axios, { type AxiosResponse } from 'axios';
import type { RequestDetails } from 'web-push';
import { lazyModule } from '../../lazy-module.js';
import { type OutboundPolicy, PUSH_ENDPOINTS, requestGuard } from '../../net/outbound-policy.js';
import { type PushMessage, parseWebPushToken } from './schema.js';
import type { PushOutcome, PushSender } from './sender.js';

/** web-push, loaded at the first notification (shared/lazy-module.ts). */
const loadWebPush = lazyModule(async () => (await import('web-push')).default);

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  /** mailto: or https: contact the push services may use to reach the operator. */
  subject: string;
}

/** Seconds a push service keeps an undelivered message: a task notice older than this is stale. */
const TTL_SEC = 600;
/** Web Push allows about 4 KB of encrypted payload; beyond this the `data` part is left out. */
const MAX_PLAINTEXT_BYTES = 3000;
const REQUEST_TIMEOUT_MS = 10_000;
/** A push service answers with a status and at most a short error text. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface WebPushSenderOptions {
  /**
   * Where endpoints may be: default PUSH_ENDPOINTS (https, public addresses). Tests that run a
   * local push service over plain http on loopback pass a policy that allows exactly that.
   */
  policy?: OutboundPolicy;
  timeoutMs?: number;
}

/**
 * Web Push (RFC 8030/8291/8292) for the drivers' web app: `web-push` encrypts the payload
 * (aes128gcm) and signs the VAPID Authorization header; the request itself goes out with axios,
 * held to the endpoint policy at connect time (a driver chose the endpoint, and DNS may have
 * changed since it was checked), with no redirects followed and no proxy.
 */
export class WebPushSender implements PushSender {
  readonly platform = 'web' as const;
  readonly endpointPolicy: OutboundPolicy;
  private readonly timeoutMs: number;

  constructor(
    private readonly keys: VapidKeys,
    options: WebPushSenderOptions = {},
  ) {
    this.endpointPolicy = options.policy ?? PUSH_ENDPOINTS;
    this.timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  }

  async send(token: string, message: PushMessage): Promise<PushOutcome> {
    const parsed = parseWebPushToken(token);
    // A token the API accepted cannot be malformed unless the stored row was damaged: drop it.
    if (!parsed.ok) return { status: 'gone' };
    const webpush = await loadWebPush();
    let details: RequestDetails;
    try {
      details = webpush.generateRequestDetails(parsed.subscription, payloadOf(message), {
        vapidDetails: this.keys,
        TTL: TTL_SEC,
        urgency: 'high',
        contentEncoding: 'aes128gcm',
      });
    } catch (err) {
      // Bad VAPID keys or subject in the configuration.
      return { status: 'failed', reason: (err as Error).message };
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(details.headers)) {
      if (name.toLowerCase() !== 'content-length') headers[name] = String(value);
    }
    let res: AxiosResponse;
    try {
      const { lookup } = requestGuard(details.endpoint, this.endpointPolicy);
      res = await axios.post(details.endpoint, details.body ?? undefined, {
        headers,
        lookup,
        maxRedirects: 0,
        proxy: false,
        maxContentLength: MAX_ANSWER_BYTES,
        responseType: 'arraybuffer',
        validateStatus: () => true,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      return { status: 'failed', reason: (err as Error).message };
    }
    if (res.status >= 200 && res.status < 300) return { status: 'sent' };
    // 404/410: the subscription expired or the user revoked it (RFC 8030 section 7.3).
    if (res.status === 404 || res.status === 410) return { status: 'gone', httpStatus: res.status };
    return { status: 'failed', reason: `push service answered ${res.status}`, httpStatus: res.status };
  }
}

function payloadOf(message: PushMessage): string {
  const full = JSON.stringify(message);
  if (Buffer.byteLength(full) <= MAX_PLAINTEXT_BYTES) return full;
  return JSON.stringify({ title: message.title, body: message.body, data: { truncated: true } });
}
