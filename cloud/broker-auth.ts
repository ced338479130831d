import { createHash, timingSafeEqual } from 'node:crypto';
import type { SiteRepo } from '../shared/modules/sync/sites.js';
import { verifyMosquittoPassword } from '../shared/sync/mosquitto-password.js';

/** Who may connect to the embedded broker, and what each may publish or subscribe to. */
export interface BrokerAuth {
  /** True when this username/password may connect. */
  authenticate(
    username: string | undefined,
    password: string | undefined,
    clientId?: string,
  ): boolean | Promise<boolean>;
  /** True when this (authenticated) user may publish or subscribe on the topic (filter). */
  authorize(username: string, topic: string, action: 'publish' | 'subscribe'): boolean;
}

export interface CloudBrokerAuthOptions {
  sites: Pick<SiteRepo, 'passwordHash'>;
  /** The cloud's own MQTT user (config mqtt.username, 'cloud' by default); may use `yards/#`. */
  cloudUsername: string;
  /** Without one the cloud user cannot log in. */
  cloudPassword: string | undefined;
  /** How long a verified site password is remembered (ms). */
  cacheMs?: number;
  now?: () => number;
}

const DEFAULT_CACHE_MS = 60_000;
const MAX_CACHED = 10_000;

/**
 * Who may use the embedded broker, with the rules of deploy/mosquitto/acl:
 * - the cloud user: `topic readwrite yards/#`;
 * - a site (username = site id, password checked against its `$7$` hash) publishes only on
 *   `yards/<id>/up/#` and `yards/<id>/status` and subscribes only to `yards/<id>/down/#`
 *   (`pattern write yards/%u/up/#`, `pattern write yards/%u/status`, `pattern read yards/%u/down/#`).
 *   So it can never touch another site's topics, and never publish what only the cloud sends: its
 *   own commands and change batches (a stolen box could otherwise open its gate with a command
 *   retained at the broker, or feed its own edge rows as if they came from the cloud);
 * - anyone else, or a wrong password: refused at connect.
 * `authorize` runs for every publish, so it is plain string checks, no lookups.
 * A login reads the site's stored hash (one indexed row) and remembers a verified password against
 * that hash for a while, so reconnect storms skip the PBKDF2 and a rotated password (new hash)
 * stops working at once.
 */
export class CloudBrokerAuth implements BrokerAuth {
  /** username -> the stored hash and sha256(password) of a recent successful login. */
  private readonly verified = new Map<string, { stored: string; digest: Buffer; until: number }>();
  private readonly cloudDigest: Buffer | undefined;
  private readonly cacheMs: number;
  private readonly now: () => number;

  constructor(private readonly options: CloudBrokerAuthOptions) {
    this.cloudDigest = options.cloudPassword === undefined ? undefined : digest(options.cloudPassword);
    this.cacheMs = options.cacheMs ?? DEFAULT_CACHE_MS;
    this.now = options.now ?? Date.now;
  }

  async authenticate(
    username: string | undefined,
    password: string | undefined,
    clientId?: string,
  ): Promise<boolean> {
    if (!username || password === undefined || password === '') return false;
    const given = digest(password);
    if (username === this.options.cloudUsername) {
      return this.cloudDigest !== undefined && timingSafeEqual(given, this.cloudDigest);
    }
    if (!isSiteId(username)) return false;
    // A site may only use its own client ids: otherwise site A could connect as `edge-B` and take
    // over B's persistent session (the broker drops the older connection of a client id). Site ids
    // never contain ':', so `edge-<id>` and `edge-<id>:<anything>` cannot collide between sites.
    if (clientId !== undefined && !isOwnClientId(username, clientId)) return false;
    const stored = await this.options.sites.passwordHash(username);
    if (stored === undefined) return false;
    const cached = this.verified.get(username);
    if (cached?.stored === stored && cached.until > this.now() && timingSafeEqual(given, cached.digest)) {
      return true;
    }
    const ok = verifyMosquittoPassword(password, stored);
    if (ok) this.remember(username, stored, given);
    return ok;
  }

  authorize(username: string, topic: string, action: 'publish' | 'subscribe'): boolean {
    const filter = stripSharePrefix(topic);
    if (filter === undefined) return false;
    if (username === this.options.cloudUsername) return isWithin(filter, 'yards');
    if (!isSiteId(username)) return false;
    const own = `yards/${username}`;
    if (action === 'subscribe') return isWithin(filter, `${own}/down`);
    return isWithin(filter, `${own}/up`) || filter === `${own}/status`;
  }

  private remember(username: string, stored: string, given: Buffer): void {
    if (this.verified.size >= MAX_CACHED) this.verified.clear();
    this.verified.set(username, { stored, digest: given, until: this.now() + this.cacheMs });
  }
}

function digest(password: string): Buffer {
  return createHash('sha256').update(password, 'utf8').digest();
}

/** Same rule as site ids: no '/', '+', '#', so `yards/<id>/` is exactly one literal level. */
function isSiteId(username: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(username);
}

/**
 * True when the topic (or subscription filter) lies inside `<root>/#`. A filter with a wildcard
 * above that (`yards/+/up/#`, `#`) is outside, as in Mosquitto's ACL check of subscriptions.
 */
function isWithin(filter: string, root: string): boolean {
  return filter === root || filter.startsWith(`${root}/`);
}

/**
 * Mosquitto checks a shared subscription (`$share/<group>/<filter>`) against the ACL by its filter;
 * do the same. Undefined for a malformed share.
 */
function stripSharePrefix(topic: string): string | undefined {
  if (!topic.startsWith('$share/')) return topic;
  const rest = topic.slice('$share/'.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  return rest.slice(slash + 1);
}

/** The client ids a site may connect with: `edge-<siteId>`, or `edge-<siteId>:<suffix>` for tools. */
export function isOwnClientId(siteId: string, clientId: string): boolean {
  return clientId === `edge-${siteId}` || clientId.startsWith(`edge-${siteId}:`);
}
