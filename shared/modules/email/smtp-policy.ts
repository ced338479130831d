import { isIP } from 'node:net';
import {
  addressRefusal,
  guardedLookup,
  type OutboundPolicy,
  OutboundRefusedError,
} from '../../net/outbound-policy.js';

/**
 * Where the SMTP server may be (docs/security.md "SMTP"): mail relays usually sit on the company's
 * private network, so private addresses are allowed; the box itself (loopback), link-local (a cloud
 * host's metadata service) and unspecified only with the config email.allowLocalSmtp (tests, labs);
 * multicast and broadcast never. The host is an admin's input: without the rule it would make the
 * cloud talk SMTP to anything it can reach.
 */
function smtpPolicy(allowLocal: boolean): OutboundPolicy {
  return {
    purpose: 'SMTP server',
    protocols: ['smtp:'],
    refusal(address) {
      const range = address.range();
      if (range === 'multicast' || range === 'broadcast') return `${address} is not a single host (${range})`;
      if (!allowLocal && (range === 'loopback' || range === 'linkLocal' || range === 'unspecified')) {
        return `${address} is a ${range === 'linkLocal' ? 'link-local' : range} address, refused unless the configuration allows local SMTP servers (email.allowLocalSmtp)`;
      }
      return null;
    },
  };
}

const POLICIES = { strict: smtpPolicy(false), local: smtpPolicy(true) };

export function smtpHostPolicy(opts: { allowLocalSmtp: boolean }): OutboundPolicy {
  return opts.allowLocalSmtp ? POLICIES.local : POLICIES.strict;
}

/**
 * The address to connect to for `host`, checked by the policy at the moment of sending: an IP
 * literal as it is, a name resolved here through the guarded lookup (every address it resolves to
 * must pass), so nodemailer connects to the checked address and a DNS answer that changed since
 * (rebinding) gains nothing. Throws OutboundRefusedError when refused.
 */
export async function smtpAddress(host: string, policy: OutboundPolicy): Promise<string> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) {
    const why = addressRefusal(bare, policy);
    if (why) throw new OutboundRefusedError(`The SMTP server ${host} is refused: ${why}.`);
    return bare;
  }
  const [addresses] = await guardedLookup(policy)(bare, {});
  const first = addresses[0];
  if (!first) throw new Error(`The SMTP server ${host} has no address.`);
  return first.address;
}

/** The policy's verdict on a host as it is stored (an IP literal, or a name as it resolves now; unresolvable names pass). */
export async function smtpHostRefusal(host: string, policy: OutboundPolicy): Promise<string | null> {
  try {
    await smtpAddress(host, policy);
    return null;
  } catch (err) {
    return err instanceof OutboundRefusedError ? err.message : null;
  }
}
