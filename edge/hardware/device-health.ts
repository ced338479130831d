import type { Logger } from '../../shared/log.js';
import { errorText, RelayFault } from './gate-driver.js';

export interface ReopenDelay {
  min: number;
  max: number;
}

/** First retry after a second, then doubling up to 30 s: quick after a glitch, quiet when unplugged. */
export const DEFAULT_REOPEN_DELAY: ReopenDelay = { min: 1_000, max: 30_000 };

/**
 * Whether a device works and, while it does not, reopening it in the background with exponential
 * backoff. Logs once per transition (fault, recovered), not once per retry, so an unplugged board
 * does not flood the log.
 */
export class DeviceHealth {
  state: 'opening' | 'ok' | 'fault' = 'opening';
  error: string | undefined;
  private delay: number;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    /** The device's name for the log (a function: drivers learn details, such as the chip, later). */
    private readonly device: () => string,
    /** Reopens the device; reports the outcome itself through ok() or fault(). */
    private readonly reopen: () => Promise<void>,
    private readonly delays: ReopenDelay = DEFAULT_REOPEN_DELAY,
    private readonly log?: Logger,
  ) {
    this.delay = delays.min;
  }

  /** The refusal for a pulse while the device does not work: what failed, and that it is retried. */
  unavailable(): RelayFault {
    return new RelayFault(
      `${this.device()} is not available: ${this.error ?? 'it is being opened'}. ` +
        'The edge keeps retrying it in the background.',
      true,
    );
  }

  /** The device works (again). */
  ok(): void {
    if (this.closed) return;
    if (this.state === 'fault') this.log?.info({ device: this.device() }, 'relay device recovered');
    this.state = 'ok';
    this.error = undefined;
    this.delay = this.delays.min;
    this.cancelRetry();
  }

  /** The device failed: say so once and keep reopening it until it works or the hub stops. */
  fault(error: string): void {
    if (this.closed) return;
    if (this.state !== 'fault') {
      this.log?.error({ device: this.device(), error }, 'relay device fault; reopening it in the background');
    } else if (error !== this.error) {
      this.log?.debug({ device: this.device(), error }, 'relay device still failing');
    }
    this.state = 'fault';
    this.error = error;
    this.scheduleRetry();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    this.cancelRetry();
  }

  private scheduleRetry(): void {
    if (this.timer || this.closed) return;
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, this.delays.max);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.closed) return;
      this.reopen().catch((err: unknown) => this.fault(errorText(err)));
    }, wait);
    this.timer.unref();
  }

  private cancelRetry(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
