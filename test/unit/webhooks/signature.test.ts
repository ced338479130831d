import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signedHeaders } from '../../../shared/modules/webhooks/signature.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const AT = Date.parse('2026-03-02T12:00:00.750Z');
const BODY = JSON.stringify({
  type: 'appointment.created',
  timestamp: '2026-03-02T12:00:00.000Z',
  data: { n: 1 },
});

/** Our headers as a receiver checks them, with the Standard Webhooks library itself (docs/webhooks.md "Verifying"). */
describe('webhook signatures', () => {
  afterEach(() => vi.useRealTimers());

  it('verify with standardwebhooks at the time of the attempt, and give the body back', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: AT + 60_000 });
    const headers = signedHeaders(SECRET, 'msg_1', AT, BODY);
    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['webhook-timestamp']).toBe('1772452800');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(SECRET).verify(BODY, headers)).toEqual(JSON.parse(BODY));
  });

  it('are refused for a changed body, another id, another secret, or an old timestamp', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: AT });
    const headers = signedHeaders(SECRET, 'msg_1', AT, BODY);
    const wh = new Webhook(SECRET);
    expect(() => wh.verify(BODY.replace('"n":1', '"n":2'), headers)).toThrow(WebhookVerificationError);
    expect(() => wh.verify(BODY, { ...headers, 'webhook-id': 'msg_2' })).toThrow(WebhookVerificationError);
    const other = new Webhook(`whsec_${Buffer.alloc(32, 8).toString('base64')}`);
    expect(() => other.verify(BODY, headers)).toThrow(WebhookVerificationError);
    vi.setSystemTime(AT + 6 * 60_000);
    expect(() => wh.verify(BODY, headers)).toThrow(/too old/i);
  });
});
