import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express from 'express';
import type { Principal } from '../../auth/principal.js';
import { canSeeYard, STAFF } from '../../auth/principal.js';
import type { PublishedEvent } from '../../bus.js';
import { toIso } from '../../clock.js';
import type { Core } from '../../core.js';
import { appliedVersion, SCHEMA_VERSION } from '../../db/migrate.js';
import { PageQuery, page } from '../../http/common-schemas.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../http/errors.js';
import type { RouteRegistrar } from '../../http/routes.js';
import { z } from '../../http/zod.js';
import { ChangeApplier } from '../../sync/applier.js';
import { exclusive } from '../../sync/outbox.js';
import { SiteRepo } from '../sync/sites.js';

const TAG = 'Platform';

export const ReadyOut = z
  .object({
    status: z.enum(['ready', 'not-ready']),
    role: z.enum(['edge', 'cloud']),
    siteId: z.string(),
    checks: z.object({
      database: z.object({ ok: z.boolean(), error: z.string().optional() }),
      migrations: z.object({ ok: z.boolean(), applied: z.number().int(), expected: z.number().int() }),
      hardware: z
        .object({
          gates: z.number().int(),
          ok: z.number().int(),
          fault: z.number().int(),
          opening: z.number().int(),
          simulated: z.number().int(),
        })
        .openapi({
          description:
            "gate relay drivers by state, counts only: this route is public, so which gate, device and channel is in GET /api/hardware/status (staff, the caller's yards)",
        }),
      sync: z.object({ mode: z.string(), queued: z.number().int() }),
    }),
  })
  .openapi('Readiness');

const LinkState = z.enum(['online', 'offline', 'never']);

export const SiteSyncStatusOut = z
  .object({
    siteId: z.string(),
    name: z.string(),
    link: LinkState.openapi({
      description: "What the site's retained status last said ('never': not yet heard from)",
    }),
    lastSeenAt: z.string().nullable(),
    lagMs: z
      .number()
      .int()
      .openapi({ description: 'Age of the oldest change waiting for the site (0 when none)' }),
    queued: z.number().int().openapi({ description: 'Changes waiting to be sent to the site' }),
    reportedQueued: z.number().int().openapi({ description: "The site's own queue, as it last reported" }),
    deadLetters: z.number().int(),
    clockSkewMs: z
      .number()
      .int()
      .openapi({ description: 'Site clock minus cloud clock, from its last status' }),
    schemaV: z.number().int().nullable(),
    version: z.string().nullable(),
  })
  .openapi('SiteSyncStatus');

export const SyncStatusOut = z
  .object({
    mode: z.enum(['standalone', 'linked', 'cloud']),
    role: z.enum(['edge', 'cloud']),
    siteId: z.string(),
    lastSeq: z.number().int(),
    ackedSeq: z.number().int(),
    queued: z.number().int(),
    deadLetters: z.number().int(),
    clockSkewMs: z.number().int(),
    /** Linked edge only. */
    link: LinkState.optional(),
    lastAckAt: z.string().nullable().optional(),
    appliedRemoteSeq: z.number().int().optional(),
    pending: z.number().int().optional().openapi({ description: 'Rows kept for a newer schema than ours' }),
    /** Cloud only. */
    sites: z.array(SiteSyncStatusOut).optional(),
  })
  .openapi('SyncStatus');

export const DeadLetterOut = z
  .object({
    id: z.number().int(),
    peer: z.string(),
    seq: z.number().int(),
    entity: z.string(),
    entityId: z.string(),
    error: z.string(),
    data: z.unknown(),
    at: z.string(),
  })
  .openapi('DeadLetter');

const DeadLetterQuery = PageQuery.extend({ peer: z.string().min(1).max(64).optional() });

export const DeadLetterRetryIn = z
  .object({
    peer: z.string().min(1).max(64).optional(),
    ids: z.array(z.number().int().positive()).min(1).max(1000).optional(),
  })
  .strict()
  .openapi('DeadLetterRetry', {
    description:
      'Which dead letters to apply again: the given ids, or every one of a peer, or (empty body {}) all of them.',
    example: { peer: 'site-berlin', ids: [17, 18] },
  });

export const DeadLetterRetryOut = z
  .object({ retried: z.number().int(), applied: z.number().int() })
  .openapi('DeadLetterRetryResult');

export const AdoptIn = z
  .object({
    ids: z.array(z.number().int().positive()).min(1).max(1000).optional().openapi({
      description: "Dead letter ids to adopt; all of the site's cloud-owned dead letters when left out.",
    }),
  })
  .strict()
  .openapi('AdoptSiteRecords', {
    description:
      "Which of the site's refused master-data rows (dead letters naming the cloud-owned rule) to take as the cloud's own.",
    example: {},
  });

export const AdoptOut = z
  .object({
    adopted: z.number().int().openapi({ description: "Rows inserted as the cloud's own (where absent)." }),
    applied: z
      .number()
      .int()
      .openapi({ description: "The site's other dead letters that applied on the retry that follows." }),
  })
  .openapi('AdoptSiteRecordsResult');

export interface PlatformDocs {
  json: () => object;
  yaml: () => string;
}

export function registerPlatformRoutes(
  r: RouteRegistrar,
  core: Core,
  docs: PlatformDocs,
  metricsText: () => Promise<string>,
  metricsContentType: string,
): void {
  r.add({
    method: 'get',
    path: '/healthz',
    tag: TAG,
    summary: 'Liveness: the process is up',
    access: 'public',
    response: { schema: z.object({ status: z.literal('ok') }) },
    handler: () => ({ status: 'ok' as const }),
  });

  r.add({
    method: 'get',
    path: '/readyz',
    tag: TAG,
    summary: 'Readiness: database open, migrations applied; hardware and sync state for information',
    description:
      'Answers 503 only when the database or migrations are not usable; a hardware fault shows in the body but keeps 200 (the rest of the API still serves).',
    access: 'public',
    response: { schema: ReadyOut },
    errors: [503],
    handler: async ({ res }) => {
      const body = await readiness(core);
      if (body.status !== 'ready') res.status(503);
      return body;
    },
  });

  r.add({
    method: 'get',
    path: '/metrics',
    tag: TAG,
    summary: 'Prometheus metrics (admin token, or the metrics key as bearer token)',
    access: ['admin'],
    response: { contentType: 'text/plain', description: 'Prometheus text format' },
    handler: async ({ res }) => {
      res.type(metricsContentType).send(await metricsText());
    },
  });

  r.add({
    method: 'get',
    path: '/v3/api-docs',
    tag: TAG,
    summary: 'OpenAPI 3.1 document, JSON',
    access: 'public',
    response: { contentType: 'application/json', description: 'OpenAPI document' },
    handler: ({ res }) => {
      res.json(docs.json());
    },
  });

  r.add({
    method: 'get',
    path: '/v3/api-docs.yaml',
    tag: TAG,
    summary: 'OpenAPI 3.1 document, YAML',
    access: 'public',
    response: { contentType: 'application/yaml', description: 'OpenAPI document' },
    handler: ({ res }) => {
      res.type('application/yaml').send(docs.yaml());
    },
  });

  r.add({
    method: 'get',
    path: '/docs',
    tag: TAG,
    summary: 'Interactive API documentation (Swagger UI)',
    access: 'public',
    response: { contentType: 'text/html', description: 'HTML page' },
    handler: ({ res }) => {
      res.type('html').send(DOCS_HTML);
    },
  });

  r.add({
    method: 'get',
    path: '/api/events',
    tag: TAG,
    summary: 'Server-sent events: live updates, filtered to what the caller may see',
    description:
      'text/event-stream. Each event has an id (resume with Last-Event-ID), an event name (the type, e.g. movement.created) and JSON data. Drivers receive only events addressed to them; staff with a yard scope only their yards. ' +
      'The stream ends, after a last `session.ended` event, as soon as its token or API key stops being valid (logout, revoked, expired, user disabled, password, role or yard scope changed): log in again before reconnecting.',
    access: 'any',
    response: { contentType: 'text/event-stream', description: 'event stream' },
    handler: ({ req, res, principal }) => {
      streamEvents(core, principal, req, res);
    },
  });

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
    access: ['admin'],
    query: DeadLetterQuery,
    response: { schema: page(DeadLetterOut) },
    handler: ({ query }) => listDeadLetters(core, query),
  });

  // Made on first use: the applier prepares its statements once.
  let applier: ChangeApplier | undefined;
  r.add({
    method: 'post',
    path: '/api/sync/dead-letter/retry',
    tag: TAG,
    summary: "Apply dead letters again (all, one peer's, or some ids); the ones that apply are removed",
    access: ['admin'],
    body: DeadLetterRetryIn,
    response: { schema: DeadLetterRetryOut },
    handler: async ({ body }) => {
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
    response: { schema: AdoptOut },
    handler: async ({ params, body, principal }) => {
      if (core.config.role !== 'cloud') {
        throw new ConflictError(
          'not-cloud',
          'Records are adopted at the cloud, from the sites linked to it.',
        );
      }
      if (principal.yardIds !== null) {
        throw new ForbiddenError(
          "Adopting a site's records makes them organisation-wide: it needs an admin without a yard scope.",
        );
      }
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

/** Static files of Swagger UI, served under /docs/ (mounted by createApp). */
export function swaggerUiStatic(): express.RequestHandler {
  // Resolve the folder without loading the package: its entry point pulls in the whole UI bundle.
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('swagger-ui-dist/package.json'));
  return express.static(dir, { index: false, maxAge: '1d' });
}

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Yard service API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/v3/api-docs', dom_id: '#swagger-ui', persistAuthorization: true });</script>
</body></html>`;

async function readiness(core: Core) {
  let database: { ok: boolean; error?: string } = { ok: true };
  let applied = 0;
  try {
    core.db.sqlite.prepare('SELECT 1').get();
    applied = appliedVersion(core.db.sqlite);
  } catch (err) {
    database = { ok: false, error: (err as Error).message };
  }
  const migrations = { ok: applied === SCHEMA_VERSION, applied, expected: SCHEMA_VERSION };
  const sync = await syncReadiness(core).catch(() => ({ mode: core.sync.mode, queued: 0 }));
  return {
    status: database.ok && migrations.ok ? ('ready' as const) : ('not-ready' as const),
    role: core.config.role,
    siteId: core.config.siteId,
    checks: {
      database,
      migrations,
      hardware: driverCounts(core.gates.status()),
      sync: { mode: sync.mode, queued: sync.queued },
    },
  };
}

function driverCounts(drivers: ReadonlyArray<{ state: 'ok' | 'fault' | 'opening' | 'simulated' }>) {
  const counts = { gates: drivers.length, ok: 0, fault: 0, opening: 0, simulated: 0 };
  for (const d of drivers) counts[d.state] += 1;
  return counts;
}

async function syncReadiness(core: Core): Promise<{ mode: string; queued: number }> {
  const runtime = core.sync.runtime;
  if (runtime) return { mode: core.sync.mode, queued: await runtime.queued() };
  const status = await standaloneStatus(core);
  return { mode: status.mode, queued: status.queued };
}

/** The runtime's answer when sync runs (linked edge, cloud), else what the local log says. */
async function syncStatus(core: Core): Promise<z.input<typeof SyncStatusOut>> {
  const runtime = core.sync.runtime;
  if (runtime) return (await runtime.status()) as z.input<typeof SyncStatusOut>;
  return standaloneStatus(core);
}

async function standaloneStatus(core: Core) {
  const peer = 'cloud';
  const last = await core.kysely
    .selectFrom('changeLog')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('peer', '=', peer)
    .executeTakeFirst();
  const cursor = await core.kysely
    .selectFrom('syncCursor')
    .selectAll()
    .where('peer', '=', peer)
    .executeTakeFirst();
  const dead = await core.kysely
    .selectFrom('deadLetter')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const lastSeq = Number(last?.seq ?? 0);
  const ackedSeq = cursor?.ackedSeq ?? 0;
  return {
    mode: core.sync.mode,
    role: core.config.role,
    siteId: core.config.siteId,
    lastSeq,
    ackedSeq,
    queued: Math.max(0, lastSeq - ackedSeq),
    deadLetters: Number(dead.n),
    clockSkewMs: Math.round(core.hlc.maxSkewMs),
  };
}

function mayReceive(principal: Principal, event: PublishedEvent): boolean {
  if (principal.role === 'driver') return event.driverId === principal.id;
  if (event.driverId && !event.yardId) return principal.yardIds === null;
  if (event.yardId) return canSeeYard(principal, event.yardId);
  return principal.yardIds === null;
}

/** How often an open stream sends a keep-alive and checks that its credential still stands. */
const HEARTBEAT_MS = 15_000;

function streamEvents(core: Core, principal: Principal, req: express.Request, res: express.Response): void {
  res.status(200).set({
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  const send = (event: PublishedEvent) => {
    if (!mayReceive(principal, event)) return;
    res.write(
      `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify({ ...event, seq: undefined })}\n\n`,
    );
  };
  res.write('retry: 3000\n: connected\n\n');
  const lastId = Number(req.get('last-event-id') ?? Number.NaN);
  if (Number.isFinite(lastId)) for (const event of core.bus.since(lastId)) send(event);
  const unsubscribe = core.bus.subscribe(send);
  // The stream must not outlive its credential: logout, a revoked key, a disabled user or a changed
  // role or scope ends it at once (AuthService.live); expiry and the rest at the next heartbeat.
  const unregister = core.services.auth.live.add(principal, (reason) => end(reason));
  const heartbeat = setInterval(() => {
    res.write(': keep-alive\n\n');
    core.services.auth.isCurrent(principal).then(
      (ok) => ok || end('credential-expired'),
      (err: unknown) => core.log.warn({ err }, 'checking an event stream credential failed'),
    );
  }, HEARTBEAT_MS);
  heartbeat.unref();
  const close = () => {
    clearInterval(heartbeat);
    unsubscribe();
    unregister();
  };
  const end = (reason: string) => {
    close();
    if (res.writableEnded) return;
    res.end(`event: session.ended\ndata: ${JSON.stringify({ type: 'session.ended', data: { reason } })}\n\n`);
  };
  req.on('close', close);
  res.on('close', close);
}
