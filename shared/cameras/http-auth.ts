/**
 * The HTTP authentication a snapshot fetch speaks: reading WWW-Authenticate challenges, picking the
 * strongest Digest one (RFC 7616) and writing the Basic or Digest Authorization answer.
 */
import { createHash, randomBytes } from 'node:crypto';
import { parse as parseAuthHeader } from 'auth-header';
import type { AxiosResponse } from 'axios';
import { CameraError } from './types.js';

/** One challenge from a WWW-Authenticate header; scheme lower-cased, parameter names lower-cased. */
export interface AuthChallenge {
  scheme: string;
  params: Record<string, string>;
}

export function challengesOf(res: AxiosResponse): AuthChallenge[] {
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

export function basicAuthorization(username: string, password: string): string {
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
export function strongestDigest(challenges: AuthChallenge[]): DigestChallenge | null {
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

export function digestAuthorization(
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
