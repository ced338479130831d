/**
 * Fetches one image (a camera snapshot, a provider's frame URL) over HTTP with Basic, Digest or
 * bearer auth, a hard deadline and a size cap, and says what went wrong in CameraError terms.
 *
 * Why our own client: node-onvif's snapshot fetch sends the password with Basic before trying
 * Digest, mis-parses base64 nonces and keeps one digest state for every camera, so concurrent
 * snapshots from two cameras fail. Here every call is self-contained: the challenge, nonce count
 * and cnonce live on the stack of one call, so cameras never see each other's state.
 */
import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parse as parseAuthHeader } from 'auth-header';
import axios, { type AxiosResponse, isAxiosError } from 'axios';
import {
  type GuardedLookup,
  type OutboundPolicy,
  outboundRefusal,
  requestGuard,
} from '../net/outbound-policy.js';
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
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

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

function toSnapshot(res: AxiosResponse<Buffer>, where: string, elapsedMs: number): Snapshot {
  if (res.status >= 300 && res.status < 400) {
    throw new CameraError(
      'bad-response',
      `${where} redirected (HTTP ${res.status}) instead of sending an image; configure the final image URL.`,
      res.status,
    );
  }
  if (res.status < 200 || res.status >= 300) {
    throw new CameraError(
      'bad-response',
      `${where} answered HTTP ${res.status} instead of an image.`,
      res.status,
    );
  }
  const bytes = Buffer.isBuffer(res.data) ? res.data : Buffer.from(res.data);
  const header = String(res.headers['content-type'] ?? '').trim();
  const mediaType = header.split(';')[0]!.trim().toLowerCase();
  if (bytes.length === 0) {
    throw new CameraError(
      'bad-response',
      `${where} answered with an empty body instead of an image.`,
      res.status,
    );
  }
  // Some cameras send JPEG with no content type or a generic one; the bytes settle it.
  if ((mediaType === '' || mediaType === 'application/octet-stream') && isJpeg(bytes)) {
    return { bytes, contentType: 'image/jpeg', elapsedMs };
  }
  if (!mediaType.startsWith('image/')) {
    throw new CameraError(
      'bad-response',
      `${where} answered with ${mediaType || 'no content type'} instead of an image; check that the URL is the camera's snapshot URL.`,
      res.status,
    );
  }
  if (/^image\/(p?jpeg|jpg)$/.test(mediaType) && !isJpeg(bytes)) {
    throw new CameraError(
      'bad-response',
      `${where} said image/jpeg but the bytes are not a JPEG.`,
      res.status,
    );
  }
  return { bytes, contentType: header, elapsedMs };
}

function isJpeg(bytes: Buffer): boolean {
  return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

function toCameraError(err: unknown, where: string, timeoutMs: number, maxBytes: number): CameraError {
  if (err instanceof CameraError) return err;
  const refused = outboundRefusal(err);
  if (refused) return new CameraError('address-refused', refused.message);
  if (axios.isCancel(err)) {
    return new CameraError('timeout', `${where} did not send a complete image within ${timeoutMs} ms.`);
  }
  const code = isAxiosError(err) ? err.code : (err as { code?: string } | undefined)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (code && UNREACHABLE_CODES.has(code)) {
    return new CameraError(
      'unreachable',
      `${where} could not be reached (${code}); check that the camera is powered, on the network and at this address.`,
    );
  }
  if (code === 'ETIMEDOUT' || code === 'ECONNABORTED') {
    return new CameraError('timeout', `${where} did not answer in time (${code}).`);
  }
  if (/maxContentLength/.test(message)) {
    return new CameraError(
      'bad-response',
      `${where} sent more than ${maxBytes} bytes; that is not a snapshot.`,
    );
  }
  return new CameraError('bad-response', `${where} failed: ${code ?? message}.`);
}

// ---- WWW-Authenticate and Authorization ----------------------------------------------------------

/** One challenge from a WWW-Authenticate header; scheme lower-cased, parameter names lower-cased. */
export interface AuthChallenge {
  scheme: string;
  params: Record<string, string>;
}

function challengesOf(res: AxiosResponse): AuthChallenge[] {
  const header = res.headers['www-authenticate'];
  const values = Array.isArray(header) ? header : header ? [String(header)] : [];
  return values.flatMap(parseChallenges);
}

/**
 * Splits a WWW-Authenticate value into its challenges and parses each with auth-header. Node joins
 * repeated WWW-Authenticate headers with ", ", and one header may carry several challenges, so the
 * split is ours: a comma-separated item that starts with a bare token (not `name=`) opens a new
 * challenge. Commas inside quoted strings do not split.
 */
export function parseChallenges(value: string): AuthChallenge[] {
  const items = splitOutsideQuotes(value);
  const groups: string[][] = [];
  for (const item of items) {
    const opensChallenge = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s+|$)/.test(item) && !/^[^\s=]+\s*=/.test(item);
    if (opensChallenge || groups.length === 0) groups.push([item]);
    else groups[groups.length - 1]!.push(item);
  }
  const challenges: AuthChallenge[] = [];
  for (const group of groups) {
    const text = group.join(', ');
    try {
      const parsed = parseAuthHeader(text.includes(' ') ? text : `${text} `);
      const params: Record<string, string> = {};
      for (const [name, v] of Object.entries(parsed.params)) {
        params[name.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
      }
      challenges.push({ scheme: parsed.scheme.toLowerCase(), params });
    } catch {
      // A challenge we cannot read is one we will not answer; the others may still do.
    }
  }
  return challenges;
}

function splitOutsideQuotes(value: string): string[] {
  const items: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (quoted && ch === '\\') {
      current += ch + (value[i + 1] ?? '');
      i++;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      if (current.trim()) items.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  if (current.trim()) items.push(current.trim());
  return items;
}

function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/** Digest algorithms (RFC 7616 section 6.1) by preference, with their node:crypto hash names. */
const DIGEST_ALGORITHMS: Record<string, { hash: string; rank: number }> = {
  'sha-512-256': { hash: 'sha512-256', rank: 3 },
  'sha-512-256-sess': { hash: 'sha512-256', rank: 3 },
  'sha-256': { hash: 'sha256', rank: 2 },
  'sha-256-sess': { hash: 'sha256', rank: 2 },
  md5: { hash: 'md5', rank: 1 },
  'md5-sess': { hash: 'md5', rank: 1 },
};

function digestAlgorithm(challenge: AuthChallenge): string {
  return (challenge.params.algorithm ?? 'MD5').toLowerCase();
}

interface DigestChallenge extends AuthChallenge {
  stale: boolean;
}

/** RFC 7616 section 3.7: when a server offers several Digest challenges, use the strongest we know. */
function strongestDigest(challenges: AuthChallenge[]): DigestChallenge | null {
  const known = challenges.filter(
    (c) => c.scheme === 'digest' && c.params.nonce !== undefined && DIGEST_ALGORITHMS[digestAlgorithm(c)],
  );
  known.sort(
    (a, b) => DIGEST_ALGORITHMS[digestAlgorithm(b)]!.rank - DIGEST_ALGORITHMS[digestAlgorithm(a)]!.rank,
  );
  const best = known[0];
  if (!best) {
    const digest = challenges.find((c) => c.scheme === 'digest');
    if (digest) {
      throw new CameraError(
        'bad-response',
        `The camera asks for Digest with algorithm ${digest.params.algorithm ?? '(none)'}, which we do not support.`,
        401,
      );
    }
    return null;
  }
  return { ...best, stale: (best.params.stale ?? '').toLowerCase() === 'true' };
}

export interface DigestInput {
  algorithm: string;
  username: string;
  password: string;
  realm: string;
  nonce: string;
  method: string;
  uri: string;
  /** 'auth', 'auth-int' or undefined for the RFC 2069 form without qop. */
  qop?: 'auth' | 'auth-int';
  nc: string;
  cnonce: string;
  /** Request body, for qop=auth-int (empty for GET). */
  body?: Buffer;
}

/** The `response` value of RFC 7616 section 3.4.1 (and RFC 2617 / 2069 for MD5). */
export function digestResponse(input: DigestInput): string {
  const algorithm = input.algorithm.toLowerCase();
  const spec = DIGEST_ALGORITHMS[algorithm];
  if (!spec) throw new Error(`unsupported digest algorithm ${input.algorithm}`);
  const h = (data: string | Buffer) => createHash(spec.hash).update(data).digest('hex');
  let ha1 = h(`${input.username}:${input.realm}:${input.password}`);
  if (algorithm.endsWith('-sess')) ha1 = h(`${ha1}:${input.nonce}:${input.cnonce}`);
  const ha2 =
    input.qop === 'auth-int'
      ? h(`${input.method}:${input.uri}:${h(input.body ?? Buffer.alloc(0))}`)
      : h(`${input.method}:${input.uri}`);
  if (!input.qop) return h(`${ha1}:${input.nonce}:${ha2}`);
  return h(`${ha1}:${input.nonce}:${input.nc}:${input.cnonce}:${input.qop}:${ha2}`);
}

function digestAuthorization(
  challenge: AuthChallenge,
  auth: { username: string; password: string },
  method: string,
  uri: string,
): string {
  const { params } = challenge;
  const offered = (params.qop ?? '').split(',').map((q) => q.trim().toLowerCase());
  const qop = offered.includes('auth') ? 'auth' : offered.includes('auth-int') ? 'auth-int' : undefined;
  // Each answer is to a fresh challenge, so the nonce count starts at 1 and nothing is kept.
  const nc = '00000001';
  const cnonce = randomBytes(16).toString('hex');
  const realm = params.realm ?? '';
  const nonce = params.nonce ?? '';
  const response = digestResponse({
    algorithm: params.algorithm ?? 'MD5',
    username: auth.username,
    password: auth.password,
    realm,
    nonce,
    method,
    uri,
    qop,
    nc,
    cnonce,
  });
  const parts = [
    `username=${quote(auth.username)}`,
    `realm=${quote(realm)}`,
    `nonce=${quote(nonce)}`,
    `uri=${quote(uri)}`,
  ];
  if (params.algorithm) parts.push(`algorithm=${params.algorithm}`);
  parts.push(`response=${quote(response)}`);
  if (qop) parts.push(`qop=${qop}`, `nc=${nc}`, `cnonce=${quote(cnonce)}`);
  if (params.opaque !== undefined) parts.push(`opaque=${quote(params.opaque)}`);
  return `Digest ${parts.join(', ')}`;
}

function quote(value: string): string {
  return `"${value.replace(/(["\\])/g, '\\$1')}"`;
}
