import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { selfSignedLoopbackCert } from './push-service-tls.js';

/** One request the receiver got, as it came. */
export interface Received {
  headers: Record<string, string>;
  body: string;
  /** Wall-clock ms at arrival (Date.now(); the bench measures lag with it). */
  at: number;
  /** The status the receiver answered. */
  status: number;
}

/** What to answer the n-th request to arrive (1-based): a status and a body, or hold it until `release()`. */
export type Answer = (n: number, req: Received) => { status: number; body?: string } | 'hold';

/**
 * A webhook receiver for tests: HTTPS on 127.0.0.1 with a self-signed certificate (the service is
 * told to trust it through config webhooks.caFile, so the path is the production one), recording
 * every request and answering as the test says: 204 by default, errors for the first attempts, or
 * holding a request open. `verify` checks a request with the `standardwebhooks` library itself.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private server: Server | undefined;
  private readonly tls: ReturnType<typeof selfSignedLoopbackCert>;
  private readonly ownsCert: boolean;
  private held: Array<() => void> = [];
  private waiters: Array<{ n: number; resolve: () => void }> = [];
  private port = 0;
  /** Requests that arrived, answered or held. */
  private arrivals = 0;
  answer: Answer = () => ({ status: 204 });

  /** `sameCertAs`: serve that receiver's certificate, so one CA file trusts both. */
  constructor(sameCertAs?: WebhookReceiver) {
    this.tls = sameCertAs ? sameCertAs.tls : selfSignedLoopbackCert();
    this.ownsCert = !sameCertAs;
  }

  get caFile(): string {
    return this.tls.certFile;
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}/hooks`;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer({ cert: this.tls.cert, key: this.tls.key }, (req, res) =>
      this.onRequest(req, res),
    );
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]): [string, string] => [
          k,
          Array.isArray(v) ? v.join(', ') : (v ?? ''),
        ]),
      );
      const got: Received = {
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        status: 0,
      };
      const answer = this.answer(++this.arrivals, got);
      const reply = (a: { status: number; body?: string }) => {
        got.status = a.status;
        this.received.push(got);
        res.writeHead(a.status, { 'content-type': 'text/plain' }).end(a.body ?? '');
        for (const w of this.waiters.filter((w) => this.received.length >= w.n)) w.resolve();
        this.waiters = this.waiters.filter((w) => this.received.length < w.n);
      };
      if (answer === 'hold') this.held.push(() => reply({ status: 204 }));
      else reply(answer);
    });
  }

  /** Stops listening (connections are refused) until `resume()`, on the same port. */
  async pause(): Promise<void> {
    this.port = (this.server!.address() as AddressInfo).port;
    this.server!.closeAllConnections();
    await new Promise<void>((r) => this.server!.close(() => r()));
  }

  async resume(): Promise<void> {
    if (!this.server?.listening) await this.start(this.port);
  }

  /** Forgets what was received and answers 204 again (between tests). */
  reset(): void {
    this.release();
    this.received.length = 0;
    this.arrivals = 0;
    this.answer = () => ({ status: 204 });
  }

  /** Requests that arrived and are held unanswered. */
  get heldCount(): number {
    return this.held.length;
  }

  /** Answers the held requests (204). */
  release(): void {
    for (const r of this.held.splice(0)) r();
  }

  /** Resolves once `n` requests in all have been answered. */
  until(n: number): Promise<void> {
    if (this.received.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  /** The requests answered 2xx, their bodies parsed. */
  delivered(): Array<{ id: string; type: string; data: any }> {
    return this.received
      .filter((r) => r.status >= 200 && r.status < 300)
      .map((r) => ({ id: r.headers['webhook-id']!, ...(JSON.parse(r.body) as { type: string; data: any }) }));
  }

  async stop(): Promise<void> {
    this.release();
    if (this.server?.listening) {
      this.server.closeAllConnections();
      await new Promise<void>((r) => this.server!.close(() => r()));
    }
    if (this.ownsCert) this.tls.remove();
  }
}

/**
 * Verifies a received request as a receiver would, with the standardwebhooks library. It compares
 * webhook-timestamp with Date.now() (5 minutes either way), so tests on a ManualClock pass the
 * clock's time as `now` and Date is faked for the call only.
 */
export function verify(secret: string, r: Received, now?: number): unknown {
  const wh = new Webhook(secret);
  if (now === undefined) return wh.verify(r.body, r.headers);
  const real = Date.now;
  Date.now = () => now;
  try {
    return wh.verify(r.body, r.headers);
  } finally {
    Date.now = real;
  }
}
