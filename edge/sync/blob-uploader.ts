import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { CoreParts } from '../../shared/core-parts.js';
import type { AttachmentService } from '../../shared/modules/attachments/service.js';
import { CloudBlobClient, CloudBlobError } from '../../shared/modules/sync/blob-client.js';
import { BlobUploadRepo, type WaitingBlob } from '../../shared/modules/sync/blob-upload-repo.js';
import type { SyncComponent } from '../../shared/sync/runtime.js';

export interface BlobUploaderOptions {
  /** Default: from config (cloudUrl, the site's MQTT credentials). */
  client?: CloudBlobClient;
  /** First retry delay; doubles per failed attempt up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Look for work this often even when nothing woke the uploader. */
  idleCheckMs?: number;
  /** [0, 1), for the jitter. */
  random?: () => number;
}

export interface BlobUploadStatus {
  /** Attachments made here whose bytes have not reached the cloud. */
  waiting: number;
  /** Distinct contents that failed at least once and are waiting for a retry. */
  failing: number;
  lastError: string | null;
}

/**
 * Retry delay after `attempts` failures: base doubling up to max, with "equal jitter" (between half
 * and all of it) so many edges that lost the cloud at once do not come back in step.
 */
export function backoffDelay(attempts: number, baseMs: number, maxMs: number, random: () => number): number {
  const full = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(full / 2 + (random() * full) / 2);
}

export type BlobUploaderDeps = Pick<CoreParts, 'config' | 'kysely' | 'hlc' | 'clock' | 'log'> & {
  /** The bytes to send, and the event of a new attachment (the uploader wakes up on it). */
  attachments: Pick<AttachmentService, 'blobs' | 'onStored'>;
};

/**
 * Sends the bytes of attachments made at this edge to the cloud (docs/sync.md "Attachment bytes"), one at a time: HEAD for
 * what the cloud already holds, PATCH the rest streamed from the file. Progress lives in blob_upload,
 * so a restart resumes. A failure is recorded and retried with backoff; while the cloud is unreachable
 * (or refuses our credentials) every upload waits, so a dead link costs one request per retry, not
 * one per waiting attachment.
 */
export class BlobUploader implements SyncComponent {
  private readonly repo: BlobUploadRepo;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly idleCheckMs: number;
  private readonly random: () => number;
  private client: CloudBlobClient | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private abort = new AbortController();
  /** Nothing is tried before this time (the link is down); epoch ms. */
  private pausedUntil = 0;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly deps: BlobUploaderDeps,
    private readonly options: BlobUploaderOptions = {},
  ) {
    this.repo = new BlobUploadRepo(deps.kysely, deps.hlc.origin);
    this.baseDelayMs = options.baseDelayMs ?? 1_000;
    this.maxDelayMs = options.maxDelayMs ?? 300_000;
    this.idleCheckMs = options.idleCheckMs ?? 60_000;
    this.random = options.random ?? Math.random;
  }

  async start(): Promise<void> {
    this.client = this.options.client ?? CloudBlobClient.fromConfig(this.deps.config);
    if (!this.client) {
      this.deps.log.warn('attachment uploads are off: the edge is not linked or has no cloudUrl');
      return;
    }
    this.stopped = false;
    this.abort = new AbortController();
    this.unsubscribe = this.deps.attachments.onStored(() => this.wake());
    this.wake();
  }

  /** Stops between or in the middle of an upload (the request is aborted; the cloud keeps its part). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.timer);
    this.abort.abort();
    await this.running;
  }

  /** Looks for work now (a new attachment was stored). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.drain()
      .catch((err: unknown) => this.deps.log.error({ err }, 'attachment upload loop failed'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        } else {
          void this.scheduleNext();
        }
      });
  }

  async status(): Promise<BlobUploadStatus> {
    const [waiting, failures] = await Promise.all([this.repo.countWaiting(), this.repo.failures()]);
    return { waiting, ...failures };
  }

  /** Attachments made here whose bytes have not reached the cloud (for /api/sync/status). */
  waiting(): Promise<number> {
    return this.repo.countWaiting();
  }

  private async drain(): Promise<void> {
    while (!this.stopped && this.deps.clock.now() >= this.pausedUntil) {
      const next = await this.repo.nextDue(this.deps.clock.now());
      if (!next) return;
      await this.upload(next);
    }
  }

  private async upload(blob: WaitingBlob): Promise<void> {
    try {
      await this.send(blob);
      await this.repo.markUploaded(blob.sha256, this.deps.clock.now());
    } catch (err) {
      if (this.stopped) return; // aborted by stop(): not the cloud's fault, not an attempt
      const failure = describe(err);
      let retryAt = 0;
      const attempts = await this.repo.markFailed(blob.sha256, failure.message, (n) => {
        retryAt = this.deps.clock.now() + backoffDelay(n, this.baseDelayMs, this.maxDelayMs, this.random);
        return retryAt;
      });
      // The link or our credentials are the problem: everything waits, not only this blob.
      if (failure.linkWide) this.pausedUntil = retryAt;
      this.deps.log.warn(
        { sha256: blob.sha256, attempts, retryAt: new Date(retryAt).toISOString(), error: failure.message },
        'attachment upload failed; will retry',
      );
    }
  }

  private async send(blob: WaitingBlob): Promise<void> {
    const path = this.deps.attachments.blobs.pathOf(blob.sha256);
    const size = (await stat(path).catch(() => undefined))?.size;
    if (size === undefined) throw new Error(`The bytes of ${blob.sha256} are missing on this edge.`);
    const client = this.client!;
    const signal = this.abort.signal;
    const held = await client.held(blob.sha256, signal);
    if (held.complete) return;
    // More than our whole file cannot be ours: send from 0 and the cloud starts over.
    const offset = held.offset <= size ? held.offset : 0;
    const body = createReadStream(path, { start: offset });
    const after = await client
      .append(blob.sha256, { offset, length: size, body }, signal)
      .finally(() => body.destroy());
    if (!after.complete) {
      throw new Error(`The cloud holds ${after.offset} of ${size} bytes after the upload; continuing later.`);
    }
  }

  /** Next look: at the earliest due retry, or after the idle interval, whichever comes first. */
  private async scheduleNext(): Promise<void> {
    if (this.stopped) return;
    const now = this.deps.clock.now();
    const nextRetry = (await this.repo.nextRetryAt().catch(() => undefined)) ?? Number.POSITIVE_INFINITY;
    const due = this.pausedUntil > now ? this.pausedUntil : nextRetry;
    const delay = Math.max(0, Math.min(this.idleCheckMs, due - now));
    if (this.stopped || this.running) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), delay);
    this.timer.unref();
  }
}

function describe(err: unknown): { message: string; linkWide: boolean } {
  if (err instanceof CloudBlobError) {
    const linkWide = err.kind === 'unreachable' || err.kind === 'timeout' || err.kind === 'refused';
    return { message: `${err.kind}: ${err.message}`, linkWide };
  }
  return { message: err instanceof Error ? err.message : String(err), linkWide: false };
}
