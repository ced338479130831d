import { STAFF } from '../../auth/principal.js';
import { page } from '../../http/common-schemas.js';
import type { RouteRegistrar } from '../../http/routes.js';
import { z } from '../../http/zod.js';
import type { DeadLetterService } from './dead-letters.js';
import {
  AdoptIn,
  AdoptOut,
  DeadLetterOut,
  DeadLetterQuery,
  DeadLetterRetryIn,
  DeadLetterRetryOut,
  SyncStatusOut,
} from './schema.js';
import type { SyncStatus } from './status.js';

const TAG = 'Platform';

/** Sync status, dead letters and adoption (docs/sync.md "Dead letters, retry and adoption" and "Trust"). */
export function registerSyncRoutes(
  r: RouteRegistrar,
  { syncStatus, deadLetters }: { syncStatus: SyncStatus; deadLetters: DeadLetterService },
): void {
  r.add({
    method: 'get',
    path: '/api/sync/status',
    tag: TAG,
    summary: 'Sync link state, queue depth, acknowledged position, dead letters and clock skew',
    access: STAFF,
    response: { schema: SyncStatusOut },
    handler: () => syncStatus.status(),
  });

  r.add({
    method: 'get',
    path: '/api/sync/dead-letter',
    tag: TAG,
    summary: 'Synced rows that failed to apply (dead letters), oldest first',
    description: "Every site's refused rows, as they were sent: an admin without a yard scope only.",
    access: ['admin'],
    query: DeadLetterQuery,
    response: { schema: page(DeadLetterOut) },
    handler: ({ query, principal }) => deadLetters.list(principal, query),
  });

  r.add({
    method: 'post',
    path: '/api/sync/dead-letter/retry',
    tag: TAG,
    summary: "Apply dead letters again (all, one peer's, or some ids); the ones that apply are removed",
    description: 'An admin without a yard scope only.',
    access: ['admin'],
    body: DeadLetterRetryIn,
    response: { schema: DeadLetterRetryOut },
    handler: ({ body, principal }) => deadLetters.retry(principal, body),
  });

  r.add({
    method: 'post',
    path: '/api/sync/sites/{siteId}/adopt',
    tag: TAG,
    summary: "Adopt a formerly standalone edge's master data as the cloud's own",
    description:
      'A site may never write cloud-owned records (users, API keys, yards, locations, carriers, integrations, ' +
      'global settings): the ones it sends are refused as dead letters naming the `cloud-owned` rule. An edge ' +
      'that ran standalone before it was linked sends its own master data that way. An unscoped admin who ' +
      'checked them (GET /api/sync/dead-letter?peer=...) adopts them here: each is inserted where absent and ' +
      "reaches the other sites that need it; then the site's other dead letters are retried. Cloud only.",
    access: ['admin'],
    params: z.object({ siteId: z.string().min(1).max(64) }),
    body: AdoptIn,
    errors: [404, 409],
    errorText: {
      404: 'No site with this id',
      409: 'Not the cloud (not-cloud): records are adopted at the cloud',
    },
    response: { schema: AdoptOut },
    handler: ({ params, body, principal }) => deadLetters.adopt(principal, params.siteId, body.ids),
  });
}
