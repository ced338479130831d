import type { RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Core } from '../../core.js';
import { IdParams, PageQuery, page } from '../../http/common-schemas.js';
import { RateLimitedError, UnauthenticatedError } from '../../http/errors.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import { z } from '../../http/zod.js';
import {
  ApiKeyCreate,
  ApiKeyCreated,
  ApiKeyOut,
  DriverLoginBody,
  LoginBody,
  PrincipalOut,
  TokenOut,
  UserCreate,
  UserListQuery,
  UserOut,
  UserPatch,
} from './schema.js';
import { principalOut } from './service.js';

const TAG = 'Auth and users';

/**
 * Login attempts per client address and account name; only failed attempts count, so a gate
 * clerk who logs in correctly is never locked out by the limit.
 */
function loginLimiter(core: Core, accountField: 'username' | 'driverCode'): RequestHandler {
  const { loginAttemptsPerWindow, loginWindowSec } = core.config.auth;
  return rateLimit({
    windowMs: loginWindowSec * 1000,
    limit: loginAttemptsPerWindow,
    skipSuccessfulRequests: true,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: (req) => {
      const account = String(
        (req.body as Record<string, unknown> | undefined)?.[accountField] ?? '',
      ).toLowerCase();
      return `${ipKeyGenerator(req.ip ?? 'unknown')}|${account}`;
    },
    handler: (_req, _res, next) => next(new RateLimitedError(loginWindowSec)),
  });
}

export function registerAuthRoutes(r: RouteRegistrar, core: Core): void {
  const auth = core.services.auth;

  r.add({
    method: 'post',
    path: '/api/auth/login',
    tag: TAG,
    summary: 'Log in with username and password; returns a bearer token',
    access: 'public',
    body: LoginBody,
    middleware: [loginLimiter(core, 'username')],
    response: { schema: TokenOut },
    errors: [401, 429],
    errorText: { 401: 'Wrong username or password, or the user is disabled (unauthenticated)' },
    handler: ({ body }) => auth.login(body.username, body.password),
  });

  r.add({
    method: 'post',
    path: '/api/auth/driver-login',
    tag: TAG,
    summary: 'Yard driver login with driver code and PIN; returns a bearer token',
    access: 'public',
    body: DriverLoginBody,
    middleware: [loginLimiter(core, 'driverCode')],
    response: { schema: TokenOut },
    errors: [401, 429],
    errorText: { 401: 'Wrong driver code or PIN, or the driver is blocked (unauthenticated)' },
    handler: ({ body }) => auth.driverLogin(body.driverCode, body.pin),
  });

  r.add({
    method: 'post',
    path: '/api/auth/logout',
    tag: TAG,
    summary: 'Revoke the token used for this request',
    access: 'any',
    response: { status: 204 },
    handler: async ({ principal }) => {
      await auth.logout(principal);
    },
  });

  r.add({
    method: 'get',
    path: '/api/auth/me',
    tag: TAG,
    summary: 'The current principal',
    access: 'any',
    response: { schema: PrincipalOut },
    handler: ({ principal }) => principalOut(principal),
  });

  r.add({
    method: 'get',
    path: '/api/user',
    tag: TAG,
    summary: 'List users',
    access: ['admin'],
    query: UserListQuery,
    response: { schema: z.object({ items: z.array(UserOut), nextCursor: z.string().nullable() }) },
    handler: ({ query }) =>
      auth.listUsers({
        limit: query.limit,
        ...(query.cursor ? { cursor: query.cursor } : {}),
        ...(query.role ? { role: query.role } : {}),
      }),
  });

  r.add({
    method: 'post',
    path: '/api/user',
    tag: TAG,
    summary: 'Create a user',
    access: ['admin'],
    body: UserCreate,
    response: { status: 201, schema: UserOut },
    errors: [409],
    handler: async ({ body, res }) => {
      const user = await auth.createUser(body);
      res.setHeader('ETag', etagOf(user.version));
      res.setHeader('Location', `/api/user/${user.id}`);
      return user;
    },
  });

  r.add({
    method: 'patch',
    path: '/api/user/{id}',
    tag: TAG,
    summary:
      'Update a user (role, scope, password, disabled); revokes their open sessions on security changes',
    access: ['admin'],
    params: IdParams,
    body: UserPatch,
    response: { schema: UserOut },
    errors: [404, 412],
    handler: async ({ params, body, ifMatch, res }) => {
      const user = await auth.updateUser(params.id, body, ifMatch);
      res.setHeader('ETag', etagOf(user.version));
      return user;
    },
  });

  r.add({
    method: 'delete',
    path: '/api/user/{id}',
    tag: TAG,
    summary: 'Disable a user (kept for the audit trail) and revoke their sessions',
    access: ['admin'],
    params: IdParams,
    response: { schema: UserOut },
    errors: [404, 409],
    handler: ({ params, principal }) => auth.disableUser(params.id, principal),
  });

  r.add({
    method: 'get',
    path: '/api/auth/api-key',
    tag: TAG,
    summary: 'List API keys (secrets are never shown again)',
    access: ['admin'],
    query: PageQuery,
    response: { schema: page(ApiKeyOut) },
    handler: ({ query }) => auth.listApiKeys(query),
  });

  r.add({
    method: 'post',
    path: '/api/auth/api-key',
    tag: TAG,
    summary: 'Create an API key for a machine client; the key is in this response only',
    access: ['admin'],
    body: ApiKeyCreate,
    response: { status: 201, schema: ApiKeyCreated },
    handler: ({ body, principal }) => auth.createApiKey(body, principal),
  });

  r.add({
    method: 'delete',
    path: '/api/auth/api-key/{id}',
    tag: TAG,
    summary: 'Revoke an API key',
    access: ['admin'],
    params: IdParams,
    response: { status: 204 },
    errors: [404],
    handler: async ({ params }) => {
      await auth.revokeApiKey(params.id);
    },
  });
}

/**
 * Resolves `Authorization: Bearer <token>` or `X-Api-Key: <key>` into res.locals.principal
 * (null when absent). An invalid credential is 401 at once, even on public routes, so a client
 * with an expired token learns it instead of silently acting anonymously.
 */
export function authenticate(core: Core): RequestHandler {
  return async (req, res, next) => {
    try {
      if (res.locals.skipAuth) return next();
      const header = req.get('authorization');
      const apiKey = req.get('x-api-key');
      res.locals.principal = null;
      let credential: string | undefined;
      if (header) {
        // HTTP Basic carries a site's credentials (edge -> cloud attachment bytes), checked only by
        // the routes that accept them (/api/sync/blob). It is no principal: other routes answer 401.
        if (/^Basic\s/i.test(header)) return next();
        const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
        if (!m) return next(new UnauthenticatedError('Authorization must be "Bearer <token>".'));
        credential = m[1];
      } else if (apiKey) {
        credential = apiKey.trim();
      }
      if (credential === undefined) return next();
      const principal = await core.services.auth.resolveBearer(credential);
      if (!principal) {
        return next(
          new UnauthenticatedError(
            'The token or API key is not valid (expired, revoked or unknown). Log in again.',
          ),
        );
      }
      res.locals.principal = principal;
      next();
    } catch (err) {
      next(err);
    }
  };
}
