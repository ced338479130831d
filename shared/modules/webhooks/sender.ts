import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { rootCertificates } from 'node:tls';
import axios from 'axios';
import { type OutboundPolicy, outboundRefusal, requestGuard } from '../../net/outbound-policy.js';

/** What a receiver's answer is kept of: its first 2 KiB. */
export const MAX_ANSWER_BYTES = 2048;

/** One attempt's outcome, as logged (webhook_attempt). */
export interface AttemptResult {
  /** The receiver's status; null when none came. */
  httpStatus: number | null;
  /** Why no answer came ('address-refused: ...', 'timeout', 'ECONNREFUSED ...'), or null. */
  error: string | null;
  responseBody: string | null;
  durationMs: number;
}

export interface WebhookSenderOptions {
  policy: OutboundPolicy;
  timeoutMs: number;
  /** A PEM file of extra CAs to trust beside the public ones (config webhooks.caFile). */
  caFile?: string | undefined;
  /** The User-Agent header: yard-service/<version>. */
  userAgent: string;
}

/**
 * POSTs one webhook (docs/webhooks.md), held to the endpoint policy at connect time (the name may
 * resolve elsewhere now than at registration), with no redirects followed (a 3xx is an answer that
 * is not 2xx, retried) and no proxy, as push messages are sent (push/web-push-sender.ts).
 */
export class WebhookSender {
  private readonly agent: https.Agent;

  constructor(private readonly o: WebhookSenderOptions) {
    const ca = o.caFile ? [...rootCertificates, readFileSync(o.caFile, 'utf8')] : undefined;
    this.agent = new https.Agent({ keepAlive: true, ...(ca ? { ca } : {}) });
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    try {
      const { lookup } = requestGuard(url, this.o.policy);
      const res = await axios.post<Readable>(url, body, {
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': this.o.userAgent },
        httpsAgent: this.agent,
        lookup,
        maxRedirects: 0,
        proxy: false,
        responseType: 'stream',
        validateStatus: () => true,
        signal: AbortSignal.timeout(this.o.timeoutMs),
      });
      const answer = await firstBytes(res.data, MAX_ANSWER_BYTES);
      return { httpStatus: res.status, error: null, responseBody: answer, durationMs: took() };
    } catch (err) {
      return { httpStatus: null, error: errorText(err), responseBody: null, durationMs: took() };
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The first `max` bytes of an answer as text; the rest is not read (the stream is closed). */
async function firstBytes(stream: Readable, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
      chunks.push(buf);
      size += buf.length;
      if (size >= max) break;
    }
  } catch {
    // An answer cut off midway: what came is kept.
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

function errorText(err: unknown): string {
  const refusal = outboundRefusal(err);
  if (refusal) return `address-refused: ${refusal.reason}`;
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  if (e.name === 'TimeoutError' || e.name === 'CanceledError' || e.code === 'ECONNABORTED') return 'timeout';
  const code = e.code ?? e.cause?.code;
  return code ? `${code}: ${e.message ?? ''}`.trim() : (e.message ?? String(err));
}
