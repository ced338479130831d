import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express from 'express';
import { sql } from 'kysely';
import type { CoreParts } from '../../core-parts.js';
import { SCHEMA_VERSION } from '../../db/migrate.js';
import type { GateDriverState } from '../../enums.js';
import { PAGE_HEADERS } from '../../http/page-headers.js';
import type { RouteRegistrar } from '../../http/routes.js';
import { z } from '../../http/zod.js';
import type { AuthService } from '../auth/service.js';
import type { SyncStatus } from '../sync/status.js';
import { streamEvents } from './event-stream.js';
import { LiveEvent } from './live-events.js';

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

export interface PlatformDocs {
  json: () => object;
  yaml: () => string;
}

/** What readiness reports on and the event stream serves from. */
export type PlatformDeps = Pick<CoreParts, 'db' | 'config' | 'gates' | 'bus' | 'log' | 'profile'> & {
  /** Ends a stream whose credential no longer stands. */
  auth: AuthService;
  syncStatus: SyncStatus;
};

export function registerPlatformRoutes(
  r: RouteRegistrar,
  deps: PlatformDeps,
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
      const body = await readiness(deps);
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
      res.set({ ...PAGE_HEADERS, 'Cache-Control': 'no-cache' });
      res.type('html').send(DOCS_HTML);
    },
  });

  r.add({
    method: 'get',
    path: '/api/events',
    tag: TAG,
    summary: 'Server-sent events: live updates, filtered to what the caller may see',
    description:
      'text/event-stream. Each event has an id (`<boot>-<seq>`: resume with Last-Event-ID), an event name (the type, e.g. movement.created) and JSON data (the `LiveEvent` schema). Drivers receive only events addressed to them; staff with a yard scope only their yards; `sync.link` goes to every staff member of the site. ' +
      'A resumed stream replays the missed events (the last 1000 are kept in memory); when it cannot (the server restarted, which changes the boot part of the ids, or more events were missed than are kept), its first event is `stream.reset`: reload what you show, then follow the stream. ' +
      'The stream ends, after a last `session.ended` event, as soon as its token or API key stops being valid (logout, revoked, expired, user disabled, password, role or yard scope changed): log in again before reconnecting.',
    access: 'any',
    response: {
      contentType: 'text/event-stream',
      schema: LiveEvent,
      description: 'Server-sent events; the JSON data of each is a LiveEvent',
    },
    handler: ({ req, res, principal }) => {
      // The stream answers itself; the schema documents each event's data.
      streamEvents(deps, principal, req, res);
      return undefined;
    },
  });
}

/** The files of swagger-ui-dist the docs page loads; its demo pages (index.html, with inline code) are not served. */
const SWAGGER_FILES = new Set([
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
]);

/**
 * Starts Swagger UI from a file, not inline, so the page keeps the apps' script-src 'self'. The
 * token pasted into "Authorize" lives only as long as the page (no persistAuthorization: it would
 * keep it in localStorage for any script of the origin to read); no validator badge from elsewhere.
 */
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/v3/api-docs', dom_id: '#swagger-ui', validatorUrl: null });\n`;

/** Static files of Swagger UI and the docs page's start script, served under /docs/ (mounted by createApp). */
export function swaggerUiStatic(): express.RequestHandler {
  // Resolve the folder without loading the package: its entry point pulls in the whole UI bundle.
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('swagger-ui-dist/package.json'));
  const files = express.static(dir, {
    index: false,
    maxAge: '1d',
    setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
  });
  return (req, res, next) => {
    const name = req.path.slice(1);
    if (name === 'docs-init.js' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.set({ 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
      res.type('text/javascript').send(DOCS_INIT);
      return;
    }
    if (SWAGGER_FILES.has(name)) return files(req, res, next);
    next();
  };
}

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Yard service API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/docs-init.js"></script>
</body></html>`;

async function readiness(deps: PlatformDeps) {
  let database: { ok: boolean; error?: string } = { ok: true };
  let applied = 0;
  try {
    // A round trip to the database, SQLite or PostgreSQL, and how far its schema is migrated.
    const row = await sql<{ v: number | null }>`SELECT max(version) AS v FROM schema_migration`.execute(
      deps.db.kysely,
    );
    applied = Number(row.rows[0]?.v ?? 0);
  } catch (err) {
    database = { ok: false, error: (err as Error).message };
  }
  const migrations = { ok: applied === SCHEMA_VERSION, applied, expected: SCHEMA_VERSION };
  const link = await deps.syncStatus.readiness().catch(() => ({ mode: deps.syncStatus.mode, queued: 0 }));
  return {
    status: database.ok && migrations.ok ? ('ready' as const) : ('not-ready' as const),
    role: deps.profile.role,
    siteId: deps.config.siteId,
    checks: {
      database,
      migrations,
      hardware: driverCounts(deps.gates.status()),
      sync: { mode: link.mode, queued: link.queued },
    },
  };
}

function driverCounts(drivers: ReadonlyArray<{ state: GateDriverState }>) {
  const counts = { gates: drivers.length, ok: 0, fault: 0, opening: 0, simulated: 0 };
  for (const d of drivers) counts[d.state] += 1;
  return counts;
}
