import { type OutboundPolicy, PUSH_ENDPOINTS } from '../../net/outbound-policy.js';
import { LOCAL_PUSH_ENDPOINTS } from '../push/endpoint-policy.js';

/**
 * Where webhook endpoints may be (docs/security.md "Outbound addresses and secrets"): the rule of
 * push endpoints, https to public unicast addresses only, so an admin's URL cannot make the service
 * POST to itself, a cloud metadata service or the network it sits in. Named for the messages.
 */
export const WEBHOOK_ENDPOINTS: OutboundPolicy = { ...PUSH_ENDPOINTS, purpose: 'webhook endpoint' };

/** Tests and labs (config webhooks.allowLocalEndpoints): loopback and private too, still https. */
export const LOCAL_WEBHOOK_ENDPOINTS: OutboundPolicy = {
  ...LOCAL_PUSH_ENDPOINTS,
  purpose: 'webhook endpoint',
};

export function webhookEndpointPolicy(config: { allowLocalEndpoints: boolean }): OutboundPolicy {
  return config.allowLocalEndpoints ? LOCAL_WEBHOOK_ENDPOINTS : WEBHOOK_ENDPOINTS;
}
