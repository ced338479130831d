import createClient, { type Middleware } from 'openapi-fetch';
import { session } from '../auth';
import { ProblemError, toProblem } from './problem';
import type { paths } from './schema';

export type { components, paths } from './schema';
export type Schemas = import('./schema').components['schemas'];

/**
 * The typed API client (openapi-fetch over the generated `paths`). It adds the session's bearer
 * token and ends the session on a 401, which brings up the login dialog over the current screen
 * (auth.ts) so nothing typed is lost.
 */
export const api = createClient<paths>({ baseUrl: '' });

const bearer: Middleware = {
  onRequest({ request }) {
    const token = session.token();
    if (token && !request.headers.has('authorization'))
      request.headers.set('Authorization', `Bearer ${token}`);
    return request;
  },
  onResponse({ request, response }) {
    if (response.status === 401 && request.headers.has('authorization')) session.expire();
    return response;
  },
};
api.use(bearer);

/**
 * Unwraps an openapi-fetch result: the data, or a ProblemError (a network failure becomes
 * `network-error`). `await call(api.GET('/api/yard'))`.
 */
export async function call<T>(
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await pending;
  } catch {
    throw new ProblemError(toProblem(0, undefined));
  }
  if (result.response.ok) return result.data as T;
  throw new ProblemError(toProblem(result.response.status, result.error));
}
