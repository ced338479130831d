/**
 * The time budget of one provider operation. A snapshot may take several requests (token, frame
 * URL, image); the caller's timeoutMs bounds all of them together, so each request gets what is
 * left. Network timeouts run on the real monotonic clock; the injected `now` of a connection is
 * only for token expiry, which tests move forward without waiting.
 */
export class Deadline {
  private constructor(private readonly atMs: number) {}

  static after(timeoutMs: number): Deadline {
    return new Deadline(performance.now() + Math.max(0, timeoutMs));
  }

  /** Milliseconds left, 0 when spent. */
  remainingMs(): number {
    return Math.max(0, Math.floor(this.atMs - performance.now()));
  }

  expired(): boolean {
    return this.remainingMs() <= 0;
  }

  /**
   * Waits for `promise`, or rejects with `onTimeout()` when the budget runs out first. Used when
   * joining work another caller started (a shared token request), which runs on its own budget.
   */
  race<T>(promise: Promise<T>, onTimeout: () => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(onTimeout()), this.remainingMs());
      promise.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  }

  /** Sleeps `ms`, but never past the deadline. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, Math.min(ms, this.remainingMs())));
  }
}
