import { Webhook } from 'standardwebhooks';

/**
 * The Standard Webhooks headers of one attempt (docs/webhooks.md "Verifying"): webhook-id (the same
 * on every attempt and replay, so receivers dedupe by it), webhook-timestamp (seconds, at the
 * attempt) and webhook-signature (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` with the
 * endpoint's secret), made by the `standardwebhooks` library that receivers verify with.
 */
export function signedHeaders(
  secret: string,
  webhookId: string,
  at: number,
  body: string,
): Record<string, string> {
  const timestamp = new Date(Math.floor(at / 1000) * 1000);
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestamp.getTime() / 1000),
    'webhook-signature': new Webhook(secret).sign(webhookId, timestamp, body),
  };
}
