import { Client, type Res } from '../../test/helpers/http.js';

/** The body of a create, or an error naming what the app answered (the tracer's worlds are built over HTTP). */
// biome-ignore lint/suspicious/noExplicitAny: answers are read as the tests read them (test/helpers/http.ts)
export async function created<T = any>(res: Promise<Res<T>>, status = 201): Promise<T> {
  const r = await res;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text}`);
  return r.body;
}

/** The test apps validate their responses by default: the tracer measures the service as it runs. */
export const AS_IN_SERVICE = { validateResponses: false };

export { Client };
