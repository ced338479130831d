import { STAFF } from '../../auth/principal.js';
import { toIso } from '../../clock.js';
import type { Core } from '../../core.js';
import { page } from '../../http/common-schemas.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { ConflictError, NotFoundError } from '../../http/errors.js';
import type { RouteRegistrar } from '../../http/routes.js';
import { z } from '../../http/zod.js';
import { ChangeApplier } from '../../sync/applier.js';
import { exclusive } from '../../sync/outbox.js';
import { assertOrganisationWide } from '../auth/admin-scope.js';
import {
  AdoptIn,
  AdoptOut,
  DeadLetterOut,
  DeadLetterQuery,
  DeadLetterRetryIn,
  DeadLetterRetryOut,
  SyncStatusOut,
} from './schema.js';
import { SiteRepo } from './sites.js';
import { syncStatus } from './status.js';

const TAG = 'Platform';

/** Sync status, dead letters and adoption (docs/sync.md "Dead letters, retry and adoption" and "Trust"). */
export function registerSyncRoutes(r: RouteRegistrar, core: Core): void {
  r.add({
    method: 'get',
    path: '/api/sync/status',
    tag: TAG,
    summary: 'Sync link state, queue depth, acknowledged position, dead letters and clock skew',
    access: STAFF,
    response: { schema: SyncStatusOut },
    handler: () => syncStatus(core),
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
    handler: ({ query, principal }) => {
      assertOrganisationWide(principal, "Dead letters (rows of every site's yards, as they were sent)");
      return listDeadLetters(core, query);
    },
  });

  // Made on first use: the applier prepares its statements once.
  let applier: ChangeApplier | undefined;
  r.add({
    method: 'post',
    path: '/api/sync/dead-letter/retry',
    tag: TAG,
    summary: "Apply dead letters again (all, one peer's, or some ids); the ones that apply are removed",
    description: 'An admin without a yard scope only.',
    access: ['admin'],
    body: DeadLetterRetryIn,
    response: { schema: DeadLetterRetryOut },
    handler: async ({ body, principal }) => {
      assertOrganisationWide(principal, 'Dead letters (rows of every site)');
      applier ??= new ChangeApplier(core);
      const target = applier;
      const filter = { ...(body.peer ? { peer: body.peer } : {}), ...(body.ids ? { ids: body.ids } : {}) };
      return exclusive(core, () => target.retryDeadLetters(filter));
    },
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
    handler: async ({ params, body, principal }) => {
      if (core.config.role !== 'cloud') {
        throw new ConflictError(
          'not-cloud',
          'Records are adopted at the cloud, from the sites linked to it.',
        );
      }
      assertOrganisationWide(principal, "A site's adopted records");
      if (!(await new SiteRepo(core.kysely).get(params.siteId)))
        throw new NotFoundError('Site', params.siteId);
      applier ??= new ChangeApplier(core);
      const target = applier;
      return exclusive(core, () => target.adoptDeadLetters(params.siteId, body.ids));
    },
  });
}

async function listDeadLetters(
  core: Core,
  query: { limit: number; cursor?: string | undefined; peer?: string | undefined },
) {
  const afterId = query.cursor ? Number(decodeCursor(query.cursor, 1)[0]) : 0;
  let q = core.kysely.selectFrom('deadLetter').selectAll().where('id', '>', afterId);
  if (query.peer) q = q.where('peer', '=', query.peer);
  const rows = await q
    .orderBy('id')
    .limit(query.limit + 1)
    .execute();
  return toPage(
    rows,
    query.limit,
    (row) => ({
      id: row.id,
      peer: row.peer,
      seq: row.seq,
      entity: row.entity,
      entityId: row.entityId,
      error: row.error,
      data: parseJson(row.data),
      at: toIso(row.at),
    }),
    (row) => [row.id],
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
