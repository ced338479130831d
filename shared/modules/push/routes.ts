import type { RouteRegistrar } from '../../http/routes.js';
import { z } from '../../http/zod.js';
import type { PushService } from './service.js';

export const PushKeyOut = z
  .object({
    publicKey: z.string().openapi({
      description:
        'The VAPID public key (uncompressed P-256 point, base64url): the `applicationServerKey` of ' +
        '`pushManager.subscribe()`.',
    }),
  })
  .openapi('PushKey');

/** The drivers' app asks for the key it subscribes with; its subscription then goes to notification-token. */
export function registerPushKeyRoute(
  r: RouteRegistrar,
  deps: { push: Pick<PushService, 'publicKey'> },
): void {
  r.add({
    method: 'get',
    path: '/api/yard-task/driver/push-key',
    tag: 'Yard Tasking',
    summary: 'The Web Push (VAPID) public key',
    description:
      'The key a browser subscribes with before it saves its subscription with ' +
      '`POST /api/yard-task/driver/notification-token`. 503 `push-not-configured` when the site has ' +
      'no VAPID keys: tasks then reach the app only while it is open (`/api/events`).',
    access: ['driver'],
    response: { schema: PushKeyOut },
    errors: [503],
    errorText: { 503: 'Push not configured on this site (push-not-configured)' },
    handler: () => deps.push.publicKey(),
  });
}
