import type { Request, RequestHandler, Response } from 'express';
import type { CoreParts } from '../../core-parts.js';
import { IdParams, PageQuery, page } from '../../http/common-schemas.js';
import { UnauthenticatedError } from '../../http/errors.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import { z } from '../../http/zod.js';
import type { DeviceCookie } from './login-devices.js';
import { type AccountField, accountKey, loginLimiters } from './login-limits.js';
import { principalOut } from './out.js';
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
import type { AuthService } from './service.js';

const TAG = 'Auth and users';

const LOGIN_LIMITS =
  'Failed attempts are limited per address and account, per address across accounts, and per account across ' +
  'addresses (429 rate-limited, with Retry-After); while too many password checks wait, 503 server-busy with ' +
  'Retry-After. A successful login sets a device cookie for that account (HttpOnly, SameSite=Strict, path ' +
  '/api/auth): a login from that browser has its own budget of failed attempts instead ' +
  '(YARD_LOGIN_ATTEMPTS_PER_DEVICE), so others guessing the account or sharing the address do not lock it out. ' +
  'A stale Authorization header is ignored here.';

/** Carrier users beside staff users (docs/api.md "Roles and access"). */
const CARRIER_USERS =
  'A carrier user (role carrier, with its carrierId) signs in as staff do and sees only its own carrier’s ' +
  'bookings, passes and invoices. It lives at the cloud (and a standalone edge) and never syncs to a site: a ' +
  'linked edge answers 409 cloud-owned. A username is one login across staff and carrier users.';

const DEVICE_COOKIE_HEADER = {
  'Set-Cookie':
    'The device cookie for this account (yard_device_…; HttpOnly, SameSite=Strict, path /api/auth, 180 days)',
};

/** The admin scope rule (admin-scope.ts), for the OpenAPI text of the user and API key routes. */
const ADMIN_SCOPE =
  'An admin with a yard scope administers only users and API keys whose yardIds are a non-empty subset of its own ' +
  'yards: others are left out of lists and are 404 by id, and it may grant only such a subset (403 otherwise: it cannot ' +
  'widen any scope, its own included, nor grant every yard). Every yard in yardIds must exist (400 on body.yardIds.N).';

export function registerAuthRoutes(
  r: RouteRegistrar,
  { auth, config }: Pick<CoreParts, 'config'> & { auth: AuthService },
): void {
  const limits = loginLimiters(config, auth.devices);
  /** After a correct login: this browser is a trusted device for that account from now on. */
  const trustDevice = async (req: Request, res: Response, field: AccountField, name: string) => {
    setDeviceCookie(req, res, await auth.devices.issue(accountKey(field, name)));
  };

  r.add({
    method: 'post',
    path: '/api/auth/login',
    tag: TAG,
    summary: 'Log in with username and password; returns a bearer token',
    description: LOGIN_LIMITS,
    access: 'public',
    body: LoginBody,
    middleware: limits.username,
    response: { schema: TokenOut, headers: DEVICE_COOKIE_HEADER },
    errors: [401, 429, 503],
    errorText: {
      401: 'Wrong username or password, or the user is disabled (unauthenticated)',
      503: 'Too many password checks waiting (server-busy): try again after Retry-After',
    },
    handler: async ({ body, req, res }) => {
      const token = await auth.login(body.username, body.password);
      await trustDevice(req, res, 'username', body.username);
      return token;
    },
  });

  r.add({
    method: 'post',
    path: '/api/auth/driver-login',
    tag: TAG,
    summary: 'Yard driver login with driver code and PIN; returns a bearer token',
    description: LOGIN_LIMITS,
    access: 'public',
    body: DriverLoginBody,
    middleware: limits.driverCode,
    response: { schema: TokenOut, headers: DEVICE_COOKIE_HEADER },
    errors: [401, 429, 503],
    errorText: {
      401: 'Wrong driver code or PIN, or the driver is blocked (unauthenticated)',
      503: 'Too many PIN checks waiting (server-busy): try again after Retry-After',
    },
    handler: async ({ body, req, res }) => {
      const token = await auth.driverLogin(body.driverCode, body.pin);
      await trustDevice(req, res, 'driverCode', body.driverCode);
      return token;
    },
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
    description: ADMIN_SCOPE,
    access: ['admin'],
    query: UserListQuery,
    response: { schema: z.object({ items: z.array(UserOut), nextCursor: z.string().nullable() }) },
    handler: ({ query, principal }) =>
      auth.listUsers(principal, {
        limit: query.limit,
        ...(query.cursor ? { cursor: query.cursor } : {}),
        ...(query.role ? { role: query.role } : {}),
        ...(query.carrierId ? { carrierId: query.carrierId } : {}),
      }),
  });

  r.add({
    method: 'post',
    path: '/api/user',
    tag: TAG,
    summary: 'Create a user',
    description: `${ADMIN_SCOPE} ${CARRIER_USERS}`,
    access: ['admin'],
    body: UserCreate,
    response: { status: 201, schema: UserOut },
    errors: [404, 409],
    errorText: {
      404: 'The carrier of a carrier user does not exist (not-found)',
    },
    handler: async ({ body, res, principal }) => {
      const user = await auth.createUser(principal, body);
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
    description: ADMIN_SCOPE,
    access: ['admin'],
    params: IdParams,
    body: UserPatch,
    response: { schema: UserOut },
    errors: [400, 404, 412],
    errorText: {
      400: 'A staff user cannot become a carrier user, nor a carrier user staff or another carrier’s (role-kind-change)',
    },
    handler: async ({ params, body, ifMatch, res, principal }) => {
      const user = await auth.updateUser(principal, params.id, body, ifMatch);
      res.setHeader('ETag', etagOf(user.version));
      return user;
    },
  });

  r.add({
    method: 'delete',
    path: '/api/user/{id}',
    tag: TAG,
    summary: 'Disable a user (kept for the audit trail) and revoke their sessions',
    description: ADMIN_SCOPE,
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
    description: ADMIN_SCOPE,
    access: ['admin'],
    query: PageQuery,
    response: { schema: page(ApiKeyOut) },
    handler: ({ query, principal }) => auth.listApiKeys(principal, query),
  });

  r.add({
    method: 'post',
    path: '/api/auth/api-key',
    tag: TAG,
    summary: 'Create an API key for a machine client; the key is in this response only',
    description: ADMIN_SCOPE,
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
    description: ADMIN_SCOPE,
    access: ['admin'],
    params: IdParams,
    response: { status: 204 },
    errors: [404],
    handler: async ({ params, principal }) => {
      await auth.revokeApiKey(params.id, principal);
    },
  });
}

/**
 * Resolves `Authorization: Bearer <token>` or `X-Api-Key: <key>` into res.locals.principal
 * (null when absent or not valid). A credential that is not valid leaves its 401 in
 * res.locals.authError: routes that need a principal answer it (the registrar's role check), public
 * ones ignore it, so a client holding an expired token can still log in again.
 */
export function authenticate(auth: AuthService): RequestHandler {
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
        if (!m) {
          res.locals.authError = new UnauthenticatedError('Authorization must be "Bearer <token>".');
          return next();
        }
        credential = m[1];
      } else if (apiKey) {
        credential = apiKey.trim();
      }
      if (credential === undefined) return next();
      const principal = await auth.resolveBearer(credential);
      if (!principal) {
        res.locals.authError = new UnauthenticatedError(
          'The token or API key is not valid (expired, revoked or unknown). Log in again.',
        );
        return next();
      }
      res.locals.principal = principal;
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** The device cookie, sent back to the login routes only, never readable by scripts. */
function setDeviceCookie(req: Request, res: Response, cookie: DeviceCookie): void {
  res.cookie(cookie.name, cookie.value, {
    httpOnly: true,
    secure: req.secure,
    sameSite: 'strict',
    path: '/api/auth',
    maxAge: cookie.maxAgeMs,
  });
}
