import { ProblemError, toProblem } from '../../common/api/problem';
import type { Loaded } from './types';

type Result<T> = { data?: T; error?: unknown; response: Response };

/** Like common `call()`, keeping the answer's ETag: the version to send back as If-Match. */
export async function withEtag<T>(pending: Promise<Result<T>>): Promise<Loaded<T>> {
  let result: Result<T>;
  try {
    result = await pending;
  } catch {
    throw new ProblemError(toProblem(0, undefined));
  }
  if (!result.response.ok) throw new ProblemError(toProblem(result.response.status, result.error));
  return { record: result.data as T, etag: result.response.headers.get('etag') ?? undefined };
}

/**
 * The ETag of a record read from a list, for routes with no GET by id (users, gates, locations):
 * the server tags each version as "v<version>" (the ETag its GET and PATCH answers carry).
 */
export function fromList<T extends { version: number }>(record: T): Loaded<T> {
  return { record, etag: `"v${record.version}"` };
}

/** The If-Match header for an update, when there is a version to match. */
export function ifMatch(etag: string | undefined): Record<string, string> {
  return etag ? { 'If-Match': etag } : {};
}

/**
 * What to tell the user about a failed call: the problem's own words, and what to do. A record
 * owned by the other side (409 cloud-owned / edge-owned) says where to change it.
 */
export function problemText(err: unknown, what = 'record'): string {
  if (!(err instanceof ProblemError)) return 'Something went wrong. Try again.';
  if (err.status === 412) {
    return `Someone else changed this ${what} since you opened it. Reload to see their change, then make yours again.`;
  }
  if (err.code === 'cloud-owned') return `${err.message} Managed in the cloud: change it there.`;
  if (err.status === 403) return `${err.message} Your role may not do this; ask an admin.`;
  // Everything else (edge-owned, in-use, not-found, no connection) in the server's own words.
  return err.message;
}

/** A stale If-Match: someone saved a newer version in between. */
export function isStale(err: unknown): boolean {
  return err instanceof ProblemError && err.status === 412;
}
