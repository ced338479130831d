import { type OutboundPolicy, PUSH_ENDPOINTS } from '../../net/outbound-policy.js';

/** Never a push endpoint, even in a lab: not one host, or no host at all. */
const NEVER_RANGES = new Set(['multicast', 'broadcast', 'unspecified', 'reserved']);

/**
 * Push endpoints for tests and labs (config push.allowLocalEndpoints): still https, but loopback
 * and private addresses too, so a fake push service on the same machine or LAN can be reached.
 * https stays required so the TLS path is the production one (the test's push service has a
 * certificate the edge is told to trust, NODE_EXTRA_CA_CERTS).
 */
export const LOCAL_PUSH_ENDPOINTS: OutboundPolicy = {
  purpose: 'push endpoint',
  protocols: ['https:'],
  refusal(address) {
    const range = address.range();
    return NEVER_RANGES.has(range) ? `${address} is not a single host (${range})` : null;
  },
};

/** The Web Push endpoint policy the configuration asks for: public addresses unless told otherwise. */
export function pushEndpointPolicy(config: { allowLocalEndpoints: boolean }): OutboundPolicy {
  return config.allowLocalEndpoints ? LOCAL_PUSH_ENDPOINTS : PUSH_ENDPOINTS;
}
