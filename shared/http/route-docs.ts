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
  if (ownership) errorStatuses.add(409);
  if (spec.params || spec.query || spec.body) errorStatuses.add(400);
  // Any write can meet a full disk (see StorageFullError).
  if (spec.method !== 'get') errorStatuses.add(507);
  if (spec.access !== 'public') {
    errorStatuses.add(401);
    errorStatuses.add(403);
  }
  for (const code of [...errorStatuses].sort()) {
    const text = spec.errorText?.[code] ?? ERROR_TEXT[code] ?? 'Error';
    responses[code] = {
      description: code === 409 && ownership ? `${text}. Also ${ownership.text}` : text,
      content: { 'application/problem+json': { schema: Problem } },
      ...(code === 429 ? { headers: RETRY_AFTER_HEADER } : {}),
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
      ...(takesIfMatch ? { headers: IF_MATCH } : {}),
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
