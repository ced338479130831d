import type { OutboundPolicy } from '../../net/outbound-policy.js';
import type { PushMessage, PushPlatformT } from './schema.js';

/** How one delivery attempt ended. `gone`: the push service says the token is dead; forget it. */
export type PushOutcome =
  | { status: 'sent' }
  | { status: 'gone'; httpStatus?: number }
  | { status: 'failed'; reason: string; httpStatus?: number };

/** Delivers push messages to the devices of one platform (Web Push, FCM, APNs, or a test double). */
export interface PushSender {
  readonly platform: PushPlatformT;
  /** Where its tokens' endpoints may be, when tokens are addresses (Web Push); else undefined. */
  readonly endpointPolicy?: OutboundPolicy;
  send(token: string, message: PushMessage): Promise<PushOutcome>;
}
