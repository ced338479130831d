import { z } from '../../http/zod.js';

export const PushPlatform = z.enum(['web', 'android', 'ios']);
export type PushPlatformT = z.infer<typeof PushPlatform>;

/** What a push message says; `data` reaches the app's service worker untouched. */
export interface PushMessage {
  title: string;
  body: string;
  data?: Record<string, unknown>;
}

/** A base64url string that decodes to `bytes` bytes. */
function base64UrlOfLength(bytes: number, what: string) {
  return z
    .string()
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, `${what} must be base64url`)
    .refine((s) => Buffer.from(s, 'base64url').length === bytes, `${what} must be ${bytes} bytes`);
}

/**
 * The browser's PushSubscription (JSON). Where the endpoint may be (https, public addresses) is the
 * outbound policy's to say (shared/net/outbound-policy.ts), checked on registration and on every send.
 */
export const WebPushSubscription = z.object({
  endpoint: z.url({ error: 'endpoint must be a URL' }).max(2000),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    // An uncompressed P-256 public key is 65 bytes; the auth secret 16.
    p256dh: base64UrlOfLength(65, 'keys.p256dh'),
    auth: base64UrlOfLength(16, 'keys.auth'),
  }),
});
export type WebPushSubscriptionT = z.infer<typeof WebPushSubscription>;

/** The web token (a JSON PushSubscription) parsed and checked, or the problems with it. */
export function parseWebPushToken(
  token: string,
): { ok: true; subscription: WebPushSubscriptionT } | { ok: false; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(token);
  } catch {
    return {
      ok: false,
      problems: ['must be the JSON of a PushSubscription {endpoint, keys: {p256dh, auth}}'],
    };
  }
  const result = WebPushSubscription.safeParse(json);
  if (result.success) return { ok: true, subscription: result.data };
  return {
    ok: false,
    problems: result.error.issues.map((i) =>
      i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message,
    ),
  };
}
