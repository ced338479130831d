/**
 * Fetches one image (a camera snapshot, a provider's frame URL) over HTTP with Basic, Digest or
 * bearer auth, a hard deadline and a size cap, and says what went wrong in CameraError terms.
 *
 * Why our own client: node-onvif's snapshot fetch sends the password with Basic before trying
 * Digest, mis-parses base64 nonces and keeps one digest state for every camera, so concurrent
 * snapshots from two cameras fail. Here every call is self-contained: the challenge, nonce count
 * and cnonce live on the stack of one call, so cameras never see each other's state.
 */
import { performance } from 'node:perf_hooks';
import axios, { type AxiosResponse } from 'axios';
import { type GuardedLookup, type OutboundPolicy, requestGuard } from '../net/outbound-policy.js';
import { basicAuthorization, challengesOf, digestAuthorization, strongestDigest } from './http-auth.js';
import { toCameraError, toSnapshot } from './image-response.js';
import { CameraError, type HttpAuth, type Snapshot } from './types.js';

export interface FetchImageOptions {
  auth?: HttpAuth;
  /** The addresses the request may connect to; a refused one is a CameraError 'address-refused'. */
  policy: OutboundPolicy;
  /** The whole exchange, including a Digest challenge round trip: connect to last byte. */
  timeoutMs: number;
  /** Default 10 MiB; a larger answer is a 'bad-response'. */
  maxBytes?: number;
  headers?: Record<string, string>;
}

const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
/** A server may re-challenge with stale=true when its nonce expired; answer that a couple of times. */
const MAX_STALE_RETRIES = 2;

/**
 * GETs `url` and returns the image bytes. Auth types:
 * - `basic` sends Basic on the first request (the operator chose it for this camera);
 * - `digest` sends nothing until the 401, then answers a Digest challenge (strongest algorithm
 *   first). It never falls back to Basic, which puts the password itself on the wire: a server
 *   that asks only for Basic is refused ('unauthorized'), so changing what a server answers cannot
 *   make us hand it the password. Basic is sent only when the operator chose `basic`.
 * - `bearer` sends the token.
 * Credentials embedded in the URL (`http://user:pass@host/...`) are treated as `digest` when no
 * auth is given, and are never passed on in the URL itself.
 */
export async function fetchImage(url: string, opts: FetchImageOptions): Promise<Snapshot> {
  const target = parseTarget(url, opts.auth ?? { type: 'none' });
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs);
  const started = performance.now();
  try {
    const { lookup } = requestGuard(target.url, opts.policy);
    const res = await exchange(target, opts, maxBytes, controller.signal, lookup);
    return toSnapshot(res, target.where, performance.now() - started);
  } catch (err) {
    throw toCameraError(err, target.where, opts.timeoutMs, maxBytes);
  } finally {
    clearTimeout(timer);
  }
}

interface Target {
  url: string;
  /** The URL as it may appear in messages: no credentials, no query (cameras put passwords there). */
  where: string;
  /** Request-target for the Digest `uri` parameter: path and query. */
  requestUri: string;
  auth: HttpAuth;
}

function parseTarget(url: string, auth: HttpAuth): Target {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CameraError('unreachable', 'The image URL is not a valid URL; check the address configured.');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new CameraError('unreachable', `The image URL must be http or https, not ${parsed.protocol}.`);
  }
  let effective = auth;
  if ((parsed.username || parsed.password) && auth.type === 'none') {
    effective = {
      type: 'digest',
      username: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
    };
  }
  parsed.username = '';
  parsed.password = '';
  return {
    url: parsed.toString(),
    where: `${parsed.origin}${parsed.pathname}`,
    requestUri: `${parsed.pathname}${parsed.search}`,
    auth: effective,
  };
}

async function exchange(
  target: Target,
  opts: FetchImageOptions,
  maxBytes: number,
  signal: AbortSignal,
  lookup: GuardedLookup,
): Promise<AxiosResponse<Buffer>> {
  const get = (authorization?: string) => {
    const headers: Record<string, string> = { Accept: 'image/*', ...opts.headers };
    if (authorization) headers.Authorization = authorization;
    return axios.get<Buffer>(target.url, {
      responseType: 'arraybuffer',
      validateStatus: () => true,
      maxRedirects: 0,
      maxContentLength: maxBytes,
      // LAN cameras are reached directly; an HTTP(S)_PROXY meant for the internet must not capture them.
      proxy: false,
      lookup,
      headers,
      signal,
    });
  };

  const { auth } = target;
  switch (auth.type) {
    case 'none':
      return expectAccepted(await get(), target, 'The camera requires credentials, but none are configured.');
    case 'bearer':
      return expectAccepted(
        await get(`Bearer ${auth.token}`),
        target,
        'The token was refused; check the token or API key configured.',
      );
    case 'basic': {
      const res = await get(basicAuthorization(auth.username, auth.password));
      const asksDigest = res.status === 401 && challengesOf(res).some((c) => c.scheme === 'digest');
      return expectAccepted(
        res,
        target,
        asksDigest
          ? 'The camera refused Basic auth and asks for Digest; set the auth type to digest.'
          : 'The camera refused the credentials; check the username and password.',
      );
    }
    case 'digest':
      return challengeResponse(get, target, auth);
  }
}

async function challengeResponse(
  get: (authorization?: string) => Promise<AxiosResponse<Buffer>>,
  target: Target,
  auth: { username: string; password: string },
): Promise<AxiosResponse<Buffer>> {
  const refused = 'The camera refused the credentials; check the username and password.';
  let res = await get();
  for (let attempt = 0; res.status === 401; attempt++) {
    const challenges = challengesOf(res);
    const digest = strongestDigest(challenges);
    if (digest) {
      // A stale nonce is not a wrong password: answer the fresh challenge. Anything else after we
      // authenticated means the credentials were refused.
      if (attempt > 0 && !(digest.stale && attempt <= MAX_STALE_RETRIES)) break;
      res = await get(digestAuthorization(digest, auth, 'GET', target.requestUri));
    } else if (challenges.some((c) => c.scheme === 'basic')) {
      throw new CameraError(
        'unauthorized',
        `${target.where} asks for HTTP Basic, which would send the password itself; the auth type is ` +
          'digest, so it was not sent. If the camera offers nothing but Basic, set the auth type to basic ' +
          '(over https where the camera supports it).',
        401,
      );
    } else {
      const offered = challenges.map((c) => c.scheme).join(', ') || 'none';
      throw new CameraError(
        'bad-response',
        `${target.where} answered 401 without a Basic or Digest challenge we support (offered: ${offered}).`,
        401,
      );
    }
  }
  return expectAccepted(res, target, refused);
}

function expectAccepted(
  res: AxiosResponse<Buffer>,
  target: Target,
  refusedMessage: string,
): AxiosResponse<Buffer> {
  if (res.status === 401) {
    throw new CameraError('unauthorized', `${target.where}: ${refusedMessage}`, res.status);
  }
  if (res.status === 403) {
    throw new CameraError(
      'unauthorized',
      `${target.where} refused access (HTTP 403); check that this user may fetch snapshots.`,
      res.status,
    );
  }
  return res;
}
