/**
 * Where the service may open outbound HTTP connections: the one home of the outbound address rule
 * (docs/security.md, "Outbound addresses and secrets"). Addresses come from people who may not be trusted with the network the
 * service sits in: a driver registers a Web Push endpoint, an admin types a camera or provider URL.
 * Without a rule each becomes a request from inside that network, to the box itself (127.0.0.1),
 * to a cloud host's metadata service (169.254.169.254), or to anything the LAN hides.
 *
 * Two policies:
 * - push endpoints: https to public unicast addresses only (no loopback, private, link-local,
 *   unique-local, carrier-grade NAT, multicast, unspecified, reserved ranges);
 * - camera and provider addresses: the LAN is where cameras live, so private ranges are allowed;
 *   loopback, link-local and unspecified only when the site allows them (a camera proxy on the box
 *   itself, a camera that fell back to a 169.254 address), multicast and broadcast never.
 *
 * Names are checked as they resolve: `requestGuard` gives each request a DNS lookup that refuses a
 * name resolving to a refused address at connect time, so a DNS answer that changes between a check
 * and the connection (DNS rebinding) gains nothing. IP literals never reach a lookup, so they are
 * checked before the request. Ranges are classified by ipaddr.js; IPv4-mapped IPv6 addresses
 * (::ffff:127.0.0.1) count as the IPv4 address they carry.
 */
import dns from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface OutboundPolicy {
  /** What the addresses are for, in messages: "push endpoint", "camera or provider address". */
  readonly purpose: string;
  /** URL schemes allowed, with their colon: 'https:'. */
  readonly protocols: readonly string[];
  /** Why connecting to `address` is refused ("127.0.0.1 is a loopback address ..."), or null. */
  refusal(address: ipaddr.IPv4 | ipaddr.IPv6): string | null;
}

/** A connection the policy refused; `code` lets HTTP clients' error handling tell it apart. */
export class OutboundRefusedError extends Error {
  readonly code = 'ERR_OUTBOUND_REFUSED';
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'OutboundRefusedError';
  }
}

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address',
  linkLocal: 'a link-local address',
  unspecified: 'an unspecified address',
  private: 'a private address',
  uniqueLocal: 'a unique-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  reserved: 'a reserved address',
};

function rangeWords(range: string): string {
  return RANGE_WORDS[range] ?? `a special-purpose address (${range})`;
}

/** Web Push endpoints: https to a public address only. */
export const PUSH_ENDPOINTS: OutboundPolicy = {
  purpose: 'push endpoint',
  protocols: ['https:'],
  refusal(address) {
    const range = address.range();
    return range === 'unicast' ? null : `${address} is ${rangeWords(range)}, not a public address`;
  },
};

/** Reached only when the site allows them: the box itself and link-local (cloud metadata services). */
const LOCAL_RANGES = new Set(['loopback', 'linkLocal', 'unspecified']);
const NEVER_RANGES = new Set(['multicast', 'broadcast']);

/** The name of the site setting that lets cameras and providers use loopback and link-local addresses. */
export const ALLOW_LOCAL_SETTING = 'network.allowLoopbackAndLinkLocal';

function devicePolicy(allowLocal: boolean): OutboundPolicy {
  return {
    purpose: 'camera or provider address',
    protocols: ['http:', 'https:'],
    refusal(address) {
      const range = address.range();
      if (NEVER_RANGES.has(range)) return `${address} is ${rangeWords(range)}`;
      if (LOCAL_RANGES.has(range) && !allowLocal) {
        return `${address} is ${rangeWords(range)}, refused unless the site setting ${ALLOW_LOCAL_SETTING} is true`;
      }
      return null;
    },
  };
}

const DEVICE_POLICIES = { strict: devicePolicy(false), local: devicePolicy(true) };

/**
 * Camera and camera-provider addresses: the LAN is allowed; loopback and link-local on request.
 * One object per setting value, so a connection can tell whether the policy changed.
 */
export function deviceAddressPolicy(opts: { allowLoopbackAndLinkLocal: boolean }): OutboundPolicy {
  return opts.allowLoopbackAndLinkLocal ? DEVICE_POLICIES.local : DEVICE_POLICIES.strict;
}

/** The policy's verdict on one IP address (text form); null when allowed or not an IP address. */
export function addressRefusal(address: string, policy: OutboundPolicy): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return null;
  // process(): an IPv4-mapped IPv6 address becomes the IPv4 address it carries.
  return policy.refusal(ipaddr.process(bare));
}

function parseUrl(url: string | URL, policy: OutboundPolicy): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundRefusedError(`The ${policy.purpose} is not a URL.`);
  }
  if (!policy.protocols.includes(parsed.protocol)) {
    const allowed = policy.protocols.map((p) => p.replace(':', '')).join(' or ');
    throw new OutboundRefusedError(
      `The ${policy.purpose} must use ${allowed}, not ${parsed.protocol.replace(':', '')}.`,
    );
  }
  return parsed;
}

function refused(policy: OutboundPolicy, host: string, why: string): OutboundRefusedError {
  return new OutboundRefusedError(`The ${policy.purpose} ${host} is refused: ${why}.`);
}

/** A DNS lookup in the promise form HTTP clients (axios) accept: every address of the name. */
export type GuardedLookup = (
  hostname: string,
  options: object,
) => Promise<[Array<{ address: string; family: 4 | 6 }>]>;

/**
 * For one HTTP request to `url`: throws OutboundRefusedError when the scheme or an IP-literal host
 * is refused, else returns the DNS lookup the request must use (it refuses, at connect time, a
 * name that resolves to any refused address).
 */
export function requestGuard(url: string | URL, policy: OutboundPolicy): { lookup: GuardedLookup } {
  const parsed = parseUrl(url, policy);
  const why = addressRefusal(parsed.hostname, policy);
  if (why) throw refused(policy, parsed.host, why);
  return { lookup: guardedLookup(policy) };
}

/** dns.lookup that fails with OutboundRefusedError when any address of the name is refused. */
export function guardedLookup(policy: OutboundPolicy): GuardedLookup {
  return async (hostname, options) => {
    const wanted = (options as { family?: unknown }).family;
    const family = wanted === 4 || wanted === 6 ? wanted : 0;
    const addresses = await dns.promises.lookup(hostname, { all: true, family });
    for (const { address } of addresses) {
      const why = addressRefusal(address, policy);
      if (why) throw refused(policy, hostname, why);
    }
    return [addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))];
  };
}

/**
 * The check when an address is stored (a push token, a camera, an integration): the scheme, an
 * IP-literal host, and what a name resolves to now. A name that does not resolve here is accepted
 * (an edge may be offline; a camera may not be on the network yet): every request checks again.
 */
export async function assertAddressAllowed(url: string | URL, policy: OutboundPolicy): Promise<void> {
  const parsed = parseUrl(url, policy);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const why = addressRefusal(host, policy);
    if (why) throw refused(policy, parsed.host, why);
    return;
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true });
  } catch {
    return;
  }
  for (const { address } of addresses) {
    const why = addressRefusal(address, policy);
    if (why) throw refused(policy, parsed.host, why);
  }
}

/** The OutboundRefusedError behind an HTTP client's error (they wrap the lookup's error), if any. */
export function outboundRefusal(err: unknown): OutboundRefusedError | undefined {
  let current: unknown = err;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof OutboundRefusedError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
