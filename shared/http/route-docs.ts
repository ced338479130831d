/** A route's OpenAPI entry, from the same spec and zod schemas that check its requests. */
import { getOpenApiMetadata, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { STAFF } from '../auth/principal.js';
import { Problem } from './common-schemas.js';
import { routeOwnership } from './route-ownership.js';
import type { Access, AnyObject, RouteSpec } from './route-spec.js';
import { z } from './zod.js';

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad input (problem+json, code validation-failed or more specific)',
  401: 'No valid token (unauthenticated)',
  403: 'Role or yard scope does not allow this (forbidden)',
  404: 'Not found',
  409: 'Conflict with the current state',
  412: 'If-Match does not match the current version (precondition-failed)',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable',
  429: 'Too many requests (rate-limited)',
  503: 'Hardware or dependency unavailable',
  504: 'Site offline',
  507: 'The disk is full; nothing was stored (storage-full)',
};

/** Set on every 429 (see setRetryAfter); the problem's `retryAfterSec` says the same. */
const RETRY_AFTER_HEADER = {
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    schema: { type: 'integer' as const, minimum: 0 },
  },
};

/** A route that answers 412 takes If-Match (RouteInput.ifMatch): the ETag of the version the client read. */
const IF_MATCH = z.object({
  'If-Match': z.string().optional().openapi({
    description: 'The ETag you read (`"v3"`): the change is refused with 412 if the record changed since',
    example: '"v3"',
  }),
});

/** A route with `idempotent` takes Idempotency-Key (shared/http/idempotency.ts has the rules). */
const IDEMPOTENCY_KEY = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .openapi({
      description:
        'A key of your own for this action (a UUID), 1 to 255 printable ASCII characters, plain or in ' +
        'the quoted form of the IETF draft. Send the action again with the same key and body after a ' +
        'lost answer: it is applied once, and the repeat gets the first answer (same status and body) ' +
        'with `Idempotent-Replayed: true`. Keys are per caller and operation, kept ' +
        '`idempotency.retentionHours` (default 48 h). Every answer of a request that reached the ' +
        'handler is kept, errors included; answers before it (400 validation, 409 in flight, 422) and ' +
        '507 are not, so a retry runs. The same key with another body, path or query: 422 ' +
        '`idempotency-key-reused`; a malformed key: 400 `invalid-idempotency-key`.',
      example: '3f0c9c1e-7a52-4c1b-9d8e-2b6f4f1a7c55',
    }),
});

const REPLAYED_HEADER = {
  'Idempotent-Replayed': {
    description: '`true` on the stored answer to a repeat of an Idempotency-Key',
    schema: { type: 'string' as const, enum: ['true'] },
  },
};

const IDEMPOTENCY_409 =
  'Also `idempotency-key-in-flight` (with Retry-After: the first request with this Idempotency-Key ' +
  'still runs; send it again) and `idempotency-outcome-unknown` (the server stopped while running the ' +
  'first request with this key, so it may or may not have been applied; it is not run again)';

const IDEMPOTENCY_429 =
  'Also `too-many-idempotency-keys`: the caller already holds `idempotency.maxKeysPerCaller` keys (default ' +
  '1000); nothing was applied, send it again after Retry-After';

const ETAG_HEADER = {
  ETag: {
    description: 'The version of the record answered, for If-Match',
    schema: { type: 'string' as const },
  },
};

/**
 * The schema of a body a route writes itself, without a zod schema: JSON is an object, text is a
 * string, anything else is bytes.
 */
function ownBodySchema(contentType: string) {
  if (contentType === 'application/json') return { type: 'object' as const, additionalProperties: true };
  if (contentType.startsWith('text/') || contentType === 'application/yaml')
    return { type: 'string' as const };
  return { type: 'string' as const, format: 'binary' };
}

export function openApiRoute(spec: RouteSpec<AnyObject, AnyObject, z.ZodType, z.ZodType>): RouteConfig {
  // A route that streams its own answer (bytes, text, events) still answers 200 with a body.
  const status = spec.response?.status ?? (spec.response?.schema || spec.response?.contentType ? 200 : 204);
  const takesIfMatch = spec.errors?.includes(412) === true;
  const headers = {
    ...Object.fromEntries(
      Object.entries(spec.response?.headers ?? {}).map(([name, description]) => [
        name,
        { description, schema: { type: 'string' as const } },
      ]),
    ),
    ...(takesIfMatch && status !== 204 ? ETAG_HEADER : {}),
    ...(spec.idempotent ? REPLAYED_HEADER : {}),
  };
  const responses: RouteConfig['responses'] = {
    [status]: {
      description: spec.response?.description ?? (status === 204 ? 'Done, no content' : 'OK'),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...(spec.response?.schema
        ? {
            content: {
              [spec.response.contentType ?? 'application/json']: { schema: spec.response.schema },
            },
          }
        : spec.response?.contentType
          ? { content: { [spec.response.contentType]: { schema: ownBodySchema(spec.response.contentType) } } }
          : {}),
    },
  };
  const errorStatuses = new Set(spec.errors ?? []);
  // Writes of owned records answer 409 cloud-owned / edge-owned on the side that does not own them.
  const ownership = routeOwnership(spec.method, spec.path);
  if (ownership || spec.cloudOwnedAtLinkedEdge) errorStatuses.add(409);
  if (spec.params || spec.query || spec.body || spec.idempotent) errorStatuses.add(400);
  if (spec.idempotent) {
    errorStatuses.add(409);
    errorStatuses.add(422);
    errorStatuses.add(429);
  }
  // Any write can meet a full disk (see StorageFullError).
  if (spec.method !== 'get') errorStatuses.add(507);
  if (spec.access !== 'public') {
    errorStatuses.add(401);
    errorStatuses.add(403);
  }
  for (const code of [...errorStatuses].sort()) {
    const text =
      spec.errorText?.[code] ??
      (code === 422 && spec.idempotent
        ? 'This Idempotency-Key was used for another request (idempotency-key-reused)'
        : (ERROR_TEXT[code] ?? 'Error'));
    const also = [
      ...(code === 409 && ownership ? [`Also ${ownership.text}`] : []),
      ...(code === 409 && spec.cloudOwnedAtLinkedEdge
        ? [`Also \`cloud-owned\` at an edge linked to a cloud: ${spec.cloudOwnedAtLinkedEdge}`]
        : []),
      ...(code === 409 && spec.idempotent ? [IDEMPOTENCY_409] : []),
      ...(code === 429 && spec.idempotent ? [IDEMPOTENCY_429] : []),
    ];
    responses[code] = {
      description: [text, ...also]
        .map((part, i, all) => (i < all.length - 1 && !part.endsWith('.') ? `${part}.` : part))
        .join(' '),
      content: { 'application/problem+json': { schema: Problem } },
      ...(code === 429 || (code === 409 && spec.idempotent) ? { headers: RETRY_AFTER_HEADER } : {}),
    };
  }
  const roles = spec.access === 'public' ? [] : spec.access === 'any' ? ['any'] : [...spec.access];
  return {
    method: spec.method,
    path: spec.path,
    tags: [spec.tag],
    summary: spec.summary,
    description: [spec.description, rolesText(spec.access)].filter(Boolean).join('\n\n'),
    security: spec.access === 'public' ? [] : [{ bearerAuth: [] }, { apiKey: [] }],
    request: {
      ...(takesIfMatch || spec.idempotent
        ? {
            headers: z.object({
              ...(takesIfMatch ? IF_MATCH.shape : {}),
              ...(spec.idempotent ? IDEMPOTENCY_KEY.shape : {}),
            }),
          }
        : {}),
      ...(spec.params ? { params: spec.params as z.ZodObject } : {}),
      ...(spec.query ? { query: spec.query as z.ZodObject } : {}),
      ...(spec.body
        ? {
            body: {
              description: getOpenApiMetadata(spec.body).description,
              required: true,
              content: { [spec.bodyType ?? 'application/json']: { schema: spec.body } },
            },
          }
        : {}),
    },
    responses,
    'x-roles': roles,
    ...(ownership ? { 'x-ownership': { entities: ownership.entities, codes: ownership.codes } } : {}),
  } as RouteConfig;
}

function rolesText(access: Access): string {
  if (access === 'public') return 'Access: public (no token).';
  if (access === 'any') return 'Access: any signed-in principal.';
  const isStaff = STAFF.every((r) => access.includes(r));
  return `Access: ${isStaff ? ['staff', ...access.filter((r) => !STAFF.includes(r))].join(', ') : access.join(', ')}.`;
}
