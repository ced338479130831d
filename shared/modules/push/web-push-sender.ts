import webpush from 'web-push';
import { type PushMessage, parseWebPushToken } from './schema.js';
import type { PushOutcome, PushSender } from './sender.js';

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

/**
 * Web Push (RFC 8030/8291/8292) for the drivers' web app: `web-push` encrypts the payload
 * (aes128gcm) and signs the VAPID Authorization header; the request itself goes out with fetch,
 * which also reaches a plain-http push service on loopback in development and tests.
 */
export class WebPushSender implements PushSender {
  readonly platform = 'web' as const;

  constructor(
    private readonly keys: VapidKeys,
    private readonly timeoutMs = REQUEST_TIMEOUT_MS,
  ) {}

  async send(token: string, message: PushMessage): Promise<PushOutcome> {
    const parsed = parseWebPushToken(token);
    // A token the API accepted cannot be malformed unless the stored row was damaged: drop it.
    if (!parsed.ok) return { status: 'gone' };
    let details: webpush.RequestDetails;
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
    let res: Response;
    try {
      res = await fetch(details.endpoint, {
        method: 'POST',
        headers,
        body: details.body ?? null,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await res.arrayBuffer();
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
