import { STAFF } from '../../auth/principal.js';
import { page } from '../../http/common-schemas.js';
import type { RouteRegistrar } from '../../http/routes.js';
import { z } from '../../http/zod.js';
import type { DeadLetterService } from './dead-letters.js';
import {
  AdoptIn,
  AdoptionPreviewOut,
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

  const adoption =
    'An edge that ran standalone before it was linked brings its own master data: its yards (naming this site), ' +
    'their locations and its carriers. A site may never write records the cloud manages, so they wait as dead ' +
    'letters naming the `cloud-owned` rule until an unscoped admin adopts them. Never adopted: users, API keys, ' +
    "settings, integrations, provider cameras, deletes, a yard naming another site or a location in another site's " +
    'yard; and nothing at all from a site provisioned linked (`site:add` without `--was-standalone`). Cloud only.';

  r.add({
    method: 'get',
    path: '/api/sync/sites/{siteId}/adoption',
    tag: TAG,
    summary: "What adopting a formerly standalone edge's master data would take, per kind",
    description: `${adoption} Lists the site's refused rows by kind: the adoptable ones, and the others with the rule that keeps them out.`,
    access: ['admin'],
    params: z.object({ siteId: z.string().min(1).max(64) }),
    errors: [404, 409],
    errorText: {
      404: 'No site with this id',
      409: 'Not the cloud (not-cloud): records are adopted at the cloud',
    },
    response: { schema: AdoptionPreviewOut },
    handler: ({ params, principal }) => deadLetters.previewAdoption(principal, params.siteId),
  });

  r.add({
    method: 'post',
    path: '/api/sync/sites/{siteId}/adopt',
    tag: TAG,
    summary: "Adopt a formerly standalone edge's master data as the cloud's own",
    description: `${adoption} Takes the given rows, each one the preview lists as adoptable: each is inserted where absent and reaches the other sites that need it; then the site's other dead letters are retried.`,
    access: ['admin'],
    params: z.object({ siteId: z.string().min(1).max(64) }),
    body: AdoptIn,
    errors: [404, 409],
    errorText: {
      404: 'No site with this id',
      409:
        'Not the cloud (not-cloud); the site was provisioned linked (site-linked-from-start); or a chosen row ' +
        'may not be adopted (not-adoptable): nothing was adopted',
    },
    response: { schema: AdoptOut },
    handler: ({ params, body, principal }) => deadLetters.adopt(principal, params.siteId, body.ids),
  });
}
