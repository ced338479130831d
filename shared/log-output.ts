import { write } from 'node:fs';

/** Lines kept while the reader is slow; beyond this new lines are dropped (and counted). */
const MAX_QUEUED_CHARS = 8 * 1024 * 1024;
/** Wait before writing again after EAGAIN (the pipe is full: its reader is slow or stalled). */
const RETRY_MS = 100;

/**
 * Where the logger writes (a pino destination): a file descriptor, normally stdout, written with
 * asynchronous fs.write so that logging can never block the process or break its shutdown.
 *
 * pino's default destination (sonic-boom) flushes synchronously when the process exits, and retries
 * a failing write in a sleep loop: with stdout a pipe whose reader has gone (EPIPE) or stopped
 * reading (EAGAIN), `process.exit()` never returned and SIGTERM left the edge running. Here:
 * - a full pipe is retried later, off the event loop; lines queue up to a bound, then are dropped
 *   and counted (the count is logged once the reader catches up);
 * - any other error (EPIPE: the reader is gone; EBADF, EIO) ends logging to this fd for good;
 * - nothing runs at exit: `flush()` is how a stopping process waits for its last lines, with its
 *   own time limit (shared/process.ts).
 */
export class NonBlockingOutput {
  private queue: string[] = [];
  private queuedChars = 0;
  private inFlight: Buffer | undefined;
  private retry: NodeJS.Timeout | undefined;
  private dropped = 0;
  private broken = false;
  private readonly idle: Array<() => void> = [];

  constructor(private readonly fd = 1) {}

  write(line: string): boolean {
    if (this.broken) return true;
    if (this.queuedChars + line.length > MAX_QUEUED_CHARS) {
      this.dropped += 1;
      return true;
    }
    this.queue.push(line);
    this.queuedChars += line.length;
    if (!this.inFlight && !this.retry) this.next();
    return true;
  }

  /** Calls back once everything queued is written, or can never be (pino's logger.flush). */
  flush(cb?: (err?: Error) => void): void {
    if (this.broken || (!this.inFlight && this.queue.length === 0)) cb?.();
    else this.idle.push(() => cb?.());
  }

  private next(): void {
    if (!this.inFlight) {
      if (this.queue.length === 0) {
        this.settle();
        return;
      }
      let text = this.queue.join('');
      if (this.dropped > 0) {
        text = `${JSON.stringify({ level: 40, time: Date.now(), msg: `${this.dropped} log lines dropped: the reader of the log did not keep up` })}\n${text}`;
        this.dropped = 0;
      }
      this.queue = [];
      this.queuedChars = 0;
      this.inFlight = Buffer.from(text);
    }
    const chunk = this.inFlight;
    write(this.fd, chunk, 0, chunk.length, null, (err, written) => {
      if (err?.code === 'EAGAIN') {
        this.retry = setTimeout(() => {
          this.retry = undefined;
          this.next();
        }, RETRY_MS);
        this.retry.unref();
        return;
      }
      if (err) {
        this.broken = true;
        this.inFlight = undefined;
        this.queue = [];
        this.queuedChars = 0;
        this.settle();
        return;
      }
      this.inFlight = written < chunk.length ? chunk.subarray(written) : undefined;
      this.next();
    });
  }

  private settle(): void {
    for (const done of this.idle.splice(0)) done();
  }
}
