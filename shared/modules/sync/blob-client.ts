import { pipeline, type Readable, Transform } from 'node:stream';
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import type { Config } from '../../config.js';
import type { BlobStore } from '../attachments/blob-store.js';

/** What the cloud holds of one blob (HEAD /api/sync/blob/{sha256}). */
export interface HeldBytes {
  offset: number;
  complete: boolean;
}

/**
 * Why a call to the cloud failed:
 * - unreachable: no answer (refused, reset, DNS, TLS) or a 5xx; try again later;
 * - timeout: the cloud stopped answering mid-exchange;
 * - refused: the cloud does not accept this site's credentials (401/403);
 * - rejected: the cloud answered that this request or these bytes are wrong (other 4xx);
 * - aborted: we stopped (shutdown).
 */
export type CloudFailure = 'unreachable' | 'timeout' | 'refused' | 'rejected' | 'aborted';

export class CloudBlobError extends Error {
  constructor(
    readonly kind: CloudFailure,
    message: string,
    /** HTTP status, and the problem code when the cloud sent one. */
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'CloudBlobError';
  }
}

export interface CloudBlobClientOptions {
  baseUrl: string;
  username: string;
  password: string;
  /** Socket inactivity limit per request (connect, and silence mid-transfer). */
  timeoutMs?: number;
  /** An axios instance (tests observe requests through its interceptors). */
  http?: AxiosInstance;
}

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * The edge's HTTP client for attachment bytes at the cloud: the resumable upload protocol of
 * /api/sync/blob (HEAD for the offset, PATCH from it) and downloads, with the site's MQTT
 * credentials as HTTP Basic.
 */
export class CloudBlobClient {
  private readonly http: AxiosInstance;
  private readonly timeoutMs: number;

  constructor(private readonly options: CloudBlobClientOptions) {
    this.http = options.http ?? axios.create();
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /**
   * The client for an edge with a cloud URL; undefined without one. Only a linked edge asks
   * (BlobFetcher and BlobUploader are plugged there alone: shared/role-parts.ts, edge/main.ts).
   * The site logs in as its MQTT user: mqtt.username, by default the site id.
   */
  static fromConfig(config: Config, http?: AxiosInstance): CloudBlobClient | undefined {
    if (!config.cloudUrl) return undefined;
    return new CloudBlobClient({
      baseUrl: config.cloudUrl,
      username: config.mqtt.username ?? config.siteId,
      password: config.mqtt.password ?? '',
      ...(http ? { http } : {}),
    });
  }

  /** How many bytes of this blob the cloud holds, and whether that is all of it. */
  async held(sha256: string, signal?: AbortSignal): Promise<HeldBytes> {
    const res = await this.call('head', sha256, { signal });
    if (res.status !== 200) throw failureOf(res, 'HEAD');
    return heldFrom(res);
  }

  /**
   * Sends `body` (the bytes from `offset` to the end, `length` in all) and answers what the cloud
   * holds afterwards. The cloud verifies the sha256 once it has every byte.
   */
  async append(
    sha256: string,
    part: { offset: number; length: number; body: Readable },
    signal?: AbortSignal,
  ): Promise<HeldBytes> {
    const res = await this.call('patch', sha256, {
      signal,
      data: part.body,
      headers: {
        'Content-Type': 'application/offset+octet-stream',
        'Content-Length': String(part.length - part.offset),
        'Upload-Offset': String(part.offset),
        'Upload-Length': String(part.length),
      },
    });
    if (res.status !== 204 && res.status !== 200) throw failureOf(res, 'PATCH');
    return heldFrom(res);
  }

  /**
   * Downloads a complete blob into `blobs`: the bytes are hashed as they stream into a temp file and
   * stored only when they match `sha256` and are at most `maxBytes`; nothing half-written remains.
   */
  async download(blobs: BlobStore, sha256: string, maxBytes: number, signal?: AbortSignal): Promise<void> {
    const res = await this.call('get', sha256, { signal, responseType: 'stream' });
    const stream = res.data as Readable;
    if (res.status !== 200) {
      stream.resume();
      throw failureOf(res, 'GET');
    }
    // pipeline, not pipe: a connection lost mid-body must fail the capped stream too.
    const capped = sizeCap(maxBytes);
    pipeline(stream, capped, () => {});
    const temp = await blobs.writeTemp(capped).catch((err: unknown) => {
      // A file system error (it names a path) is ours, not the cloud's.
      throw err instanceof Error && 'path' in err ? err : transportFailure(err);
    });
    try {
      if (temp.sha256 !== sha256) {
        throw new CloudBlobError('rejected', `The cloud sent bytes whose sha256 is ${temp.sha256}.`);
      }
      await blobs.withContentLock(sha256, () => blobs.commit(temp));
    } finally {
      await blobs.discardTemp(temp.path);
    }
  }

  private async call(
    method: 'head' | 'patch' | 'get',
    sha256: string,
    extra: {
      signal?: AbortSignal | undefined;
      data?: Readable;
      headers?: Record<string, string>;
      responseType?: 'stream';
    },
  ): Promise<AxiosResponse> {
    if (!SHA256.test(sha256)) throw new CloudBlobError('rejected', `Not a sha256: ${sha256}`);
    try {
      return await this.http.request({
        method,
        url: new URL(`/api/sync/blob/${sha256}`, this.options.baseUrl).toString(),
        auth: { username: this.options.username, password: this.options.password },
        timeout: this.timeoutMs,
        // No redirects: follow-redirects would buffer the streamed body to be able to replay it.
        maxRedirects: 0,
        maxBodyLength: Number.POSITIVE_INFINITY,
        maxContentLength: Number.POSITIVE_INFINITY,
        validateStatus: () => true,
        ...(extra.signal ? { signal: extra.signal } : {}),
        ...(extra.data ? { data: extra.data } : {}),
        ...(extra.headers ? { headers: extra.headers } : {}),
        ...(extra.responseType ? { responseType: extra.responseType } : {}),
      });
    } catch (err) {
      throw transportFailure(err);
    }
  }
}

function heldFrom(res: AxiosResponse): HeldBytes {
  const offset = Number(res.headers['upload-offset']);
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new CloudBlobError('unreachable', 'The cloud answered without a valid Upload-Offset header.');
  }
  return { offset, complete: res.headers['upload-complete'] === '?1' };
}

function failureOf(res: AxiosResponse, what: string): CloudBlobError {
  const body = res.data as { code?: unknown; detail?: unknown } | undefined;
  const code = typeof body?.code === 'string' ? body.code : undefined;
  const detail = typeof body?.detail === 'string' ? `: ${body.detail}` : '';
  const message = `${what} answered ${res.status}${code ? ` ${code}` : ''}${detail}`;
  if (res.status === 401 || res.status === 403)
    return new CloudBlobError('refused', message, res.status, code);
  if (res.status >= 500) return new CloudBlobError('unreachable', message, res.status, code);
  return new CloudBlobError('rejected', message, res.status, code);
}

function transportFailure(err: unknown): CloudBlobError {
  if (err instanceof CloudBlobError) return err;
  if (axios.isCancel(err) || (err as { name?: string })?.name === 'AbortError') {
    return new CloudBlobError('aborted', 'Stopped before the cloud answered.');
  }
  const code = (err as { code?: string })?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'ECONNABORTED' || code === 'ETIMEDOUT') {
    return new CloudBlobError('timeout', `The cloud did not answer in time (${message}).`);
  }
  return new CloudBlobError('unreachable', `The cloud is unreachable (${code ?? message}).`);
}

/** Passes bytes through until more than `maxBytes` came, then fails the stream. */
function sizeCap(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > maxBytes) {
        callback(new CloudBlobError('rejected', `The cloud sent more than ${maxBytes} bytes.`));
        return;
      }
      callback(null, chunk);
    },
  });
}
