import type { CoreParts } from '../../core-parts.js';
import { AppError, type FieldError } from '../../http/errors.js';
import { assertAddressAllowed, OutboundRefusedError } from '../../net/outbound-policy.js';
import { type DeviceToken, saveDeviceToken } from './device-tokens.js';
import { pushEndpointPolicy } from './endpoint-policy.js';
import { PushTokenRepo, type PushTokenRow } from './repo.js';

/** A device's push registration, as the service hands it to other modules. */
export type { PushTokenRow };

import type { PushMessage, PushPlatformT } from './schema.js';
import type { PushOutcome, PushSender } from './sender.js';
import { WebPushSender } from './web-push-sender.js';

export type PushDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes' | 'log' | 'config'>;

/**
 * Push messages to a driver's devices. Delivery runs in the background: notify() resolves once the
 * message is queued, so a slow or unreachable push service (an edge whose internet link is down)
 * never slows or fails the task operation that caused it. Failures are logged; a token the push
 * service calls gone is deleted.
 */
export class PushService {
  private readonly repo: PushTokenRepo;
  private senders: Map<PushPlatformT, PushSender> | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: PushDeps) {
    this.repo = new PushTokenRepo(deps.kysely);
    if (deps.config.push.allowLocalEndpoints) {
      deps.log.warn(
        'push.allowLocalEndpoints (YARD_PUSH_ALLOW_LOCAL_ENDPOINTS) is on: drivers may register push ' +
          'endpoints on loopback and private addresses. For tests and labs only.',
      );
    }
  }

  /**
   * The VAPID public key browsers subscribe with (applicationServerKey); 503 push-not-configured
   * when the site has no VAPID keys (the app then relies on the live event stream alone).
   */
  publicKey(): { publicKey: string } {
    const { vapidPublicKey, vapidPrivateKey } = this.deps.config.push;
    if (!vapidPublicKey || !vapidPrivateKey) {
      throw new AppError(
        503,
        'push-not-configured',
        'Push not configured',
        'This site has no VAPID keys (YARD_VAPID_PUBLIC_KEY, YARD_VAPID_PRIVATE_KEY): notifications ' +
          'reach the app only while it is open.',
      );
    }
    return { publicKey: vapidPublicKey };
  }

  /** Never throws. */
  notify(driverId: string, message: PushMessage): Promise<void> {
    const delivery = this.deliver(driverId, message)
      .catch((err: unknown) => {
        this.deps.log.error({ err, driverId }, 'push delivery failed');
      })
      .finally(() => this.inFlight.delete(delivery));
    this.inFlight.add(delivery);
    return Promise.resolve();
  }

  /** Resolves when every queued delivery has finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  stop(): Promise<void> {
    return this.idle();
  }

  /**
   * Why a Web Push endpoint may not be registered (the web sender's endpoint policy: https to a
   * public address, or also local ones with push.allowLocalEndpoints), or null. Sending checks again, at connect time.
   */
  async webEndpointRefusal(endpoint: string): Promise<FieldError | null> {
    const policy =
      this.sendersByPlatform().get('web')?.endpointPolicy ?? pushEndpointPolicy(this.deps.config.push);
    try {
      await assertAddressAllowed(endpoint, policy);
      return null;
    } catch (err) {
      if (!(err instanceof OutboundRefusedError)) throw err;
      return { path: 'body.token', message: `endpoint: ${err.message}`, code: 'address-refused' };
    }
  }

  /**
   * Saves the push token of one of the driver's devices (device-tokens.ts): one row per driver and
   * device, and a token belongs to one driver at a time.
   */
  saveDeviceToken(driverId: string, input: DeviceToken) {
    return saveDeviceToken(
      { ...this.deps, webEndpointRefusal: (e) => this.webEndpointRefusal(e) },
      driverId,
      input,
    );
  }

  /** Replaces the senders built from config (a different provider, or a test double). */
  useSenders(senders: PushSender[]): void {
    this.senders = new Map(senders.map((s) => [s.platform, s]));
  }

  private async deliver(driverId: string, message: PushMessage): Promise<void> {
    const tokens = await this.repo.ofDriver(driverId);
    for (const token of tokens) {
      const sender = this.sendersByPlatform().get(token.platform);
      if (!sender) {
        this.deps.log.debug({ driverId, platform: token.platform }, 'no push provider configured; not sent');
        continue;
      }
      const outcome = await sender.send(token.token, message);
      await this.handle(token, outcome);
    }
  }

  private async handle(token: PushTokenRow, outcome: PushOutcome): Promise<void> {
    const context = { driverId: token.driverId, deviceId: token.deviceId, platform: token.platform };
    if (outcome.status === 'sent') {
      this.deps.log.debug(context, 'push sent');
    } else if (outcome.status === 'gone') {
      this.deps.log.info({ ...context, httpStatus: outcome.httpStatus }, 'push token gone; deleting it');
      await this.forget(token);
    } else {
      this.deps.log.warn(
        { ...context, httpStatus: outcome.httpStatus, reason: outcome.reason },
        'push failed',
      );
    }
  }

  /**
   * Deletes the token unless the device registered a new one meanwhile. The cloud leaves it: push
   * tokens are the edge's, which drops it when its own next message finds it gone.
   */
  private async forget(token: PushTokenRow): Promise<void> {
    if (!this.deps.changes.mayWrite('pushToken')) return;
    await this.deps.kysely.transaction().execute(async (trx) => {
      const current = await new PushTokenRepo(trx).byId(token.id);
      if (current?.token === token.token) await this.deps.changes.delete(trx, 'pushToken', token.id);
    });
  }

  private sendersByPlatform(): Map<PushPlatformT, PushSender> {
    if (this.senders) return this.senders;
    const { vapidPublicKey, vapidPrivateKey, subject } = this.deps.config.push;
    const senders: PushSender[] = [];
    if (vapidPublicKey && vapidPrivateKey) {
      senders.push(
        new WebPushSender(
          { publicKey: vapidPublicKey, privateKey: vapidPrivateKey, subject },
          { policy: pushEndpointPolicy(this.deps.config.push) },
        ),
      );
    }
    this.senders = new Map(senders.map((s) => [s.platform, s]));
    return this.senders;
  }
}
