/** Timed GETs with real HTTP (fetch), the way a browser page calls the API: one request at a time per client. */

export interface Timing {
  ms: number;
  status: number;
  bytes: number;
}

export interface RouteFigures {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Statuses other than 200 (a missing or broken route). */
  failures: Array<{ status: number; body: string }>;
  bytes: number;
}

export class Api {
  /** Kept-alive connections the server closed as a request went out on them (retried once). */
  resets = 0;

  constructor(
    readonly base: string,
    readonly token: string,
  ) {}

  /**
   * One GET, timed from the first attempt until the whole body has arrived. A connection reset is
   * retried once (the server may close an idle kept-alive connection as the client reuses it); a
   * request that still gets no answer is status 0, never an exception.
   */
  async get(path: string): Promise<Timing & { body: string }> {
    const started = performance.now();
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await fetch(`${this.base}${path}`, {
          headers: { authorization: `Bearer ${this.token}` },
        });
        const body = await res.text();
        return { ms: performance.now() - started, status: res.status, bytes: body.length, body };
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause?.code ?? '';
        if (attempt === 1 && /ECONNRESET|UND_ERR_SOCKET|EPIPE/.test(cause)) {
          this.resets++;
          continue;
        }
        return {
          ms: performance.now() - started,
          status: 0,
          bytes: 0,
          body: `no answer: ${(err as Error).message} ${cause}`,
        };
      }
    }
  }

  static async logIn(base: string, username: string, password: string): Promise<Api> {
    const res = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    if (res.status !== 200) throw new Error(`login answered ${res.status}: ${await res.text()}`);
    return new Api(base, ((await res.json()) as { token: string }).token);
  }
}

/**
 * Calls one route over and over (after one unmeasured call) until `samples` answers or `seconds`
 * have passed, at least `minSamples` times.
 */
export async function measureRoute(
  api: Api,
  path: string,
  o: { samples: number; seconds: number; minSamples: number },
): Promise<RouteFigures> {
  const failures: RouteFigures['failures'] = [];
  const first = await api.get(path);
  if (first.status !== 200)
    return { ...figures([]), failures: [{ status: first.status, body: first.body.slice(0, 300) }] };
  const times: number[] = [];
  const until = performance.now() + o.seconds * 1000;
  while (times.length < o.samples && (times.length < o.minSamples || performance.now() < until)) {
    const t = await api.get(path);
    if (t.status !== 200) failures.push({ status: t.status, body: t.body.slice(0, 300) });
    times.push(t.ms);
  }
  return { ...figures(times), failures, bytes: first.bytes };
}

/** Calls the paths in turn, one at a time, until `stop()` says so; returns each answer's time. */
export async function pollLoop(api: Api, paths: string[], stop: () => boolean): Promise<Timing[]> {
  const out: Timing[] = [];
  for (let i = 0; !stop(); i++) {
    const t = await api.get(paths[i % paths.length]!);
    out.push({ ms: t.ms, status: t.status, bytes: t.bytes });
  }
  return out;
}

export function figures(times: number[]): RouteFigures {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
    failures: [],
    bytes: 0,
  };
}

/** Nearest-rank percentile of ascending values (NaN without values). */
export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}
