import type { Logger } from '../../shared/log.js';
import { DeviceHealth, type ReopenDelay } from './device-health.js';
import {
  type DeviceStatus,
  droppedLines,
  type GateDriver,
  RelayFault,
  type RelayLine,
} from './gate-driver.js';
import type { GpioChip } from './gpio-chips.js';

/** What both GPIO drivers are told, whatever interface (sysfs, gpioset) they drive the lines with. */
export interface GpioLineOptions {
  /** The chip: by label or name (and for gpioset a number or /dev path); default the header chip. */
  device?: string | undefined;
  reopenDelayMs?: ReopenDelay | undefined;
  log?: Logger | undefined;
  onCommand?: ((line: RelayLine, energised: boolean) => void) | undefined;
}

/**
 * The life of relays on the GPIO lines of one chip, common to the sysfs and the gpioset driver:
 * lines come and go with open(), a command is refused while the device is closed or not working,
 * a fault reconnects in the background (through DeviceHealth) and re-drives every line, and close()
 * releases every line. A subclass says how it connects, drives and releases one line.
 */
export abstract class GpioLineDriver implements GateDriver {
  protected readonly health: DeviceHealth;
  protected lines: RelayLine[] = [];
  protected chip: GpioChip | undefined;
  protected closed = false;
  private connecting: Promise<void> | undefined;

  constructor(protected readonly options: GpioLineOptions) {
    this.health = new DeviceHealth(
      () => this.name,
      () => this.reconnect(true),
      options.reopenDelayMs,
      options.log,
    );
  }

  abstract get name(): string;

  async open(lines: RelayLine[]): Promise<void> {
    const dropped = droppedLines(this.lines, lines);
    this.lines = lines;
    for (const line of dropped) await this.releasing(line);
    if (this.connecting) await this.connecting;
    if (this.health.state !== 'fault') await this.reconnect(false);
  }

  async set(line: RelayLine, energised: boolean): Promise<void> {
    if (this.closed) throw new RelayFault(`${this.name} is closed (the edge is shutting down).`, false);
    if (this.health.state !== 'ok') throw this.health.unavailable();
    await this.drive(line, energised);
  }

  status(): DeviceStatus {
    return { state: this.health.state, error: this.health.error };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.health.close();
    if (this.connecting) await this.connecting;
    for (const line of this.heldLines()) await this.releasing(line);
  }

  /** Drives one line of a working device; calls options.onCommand once it is about to. */
  protected abstract drive(line: RelayLine, energised: boolean): Promise<void>;
  /**
   * Sets up the lines not yet held (after a fault, `again`: every line, which a failed write may
   * have left energised); reports ok or fault through health.
   */
  protected abstract connect(again: boolean): Promise<void>;
  /** De-energises a line and gives it up; best effort, the line is being given up anyway. */
  protected abstract release(line: RelayLine): Promise<void> | void;
  /** The lines to release on close. */
  protected abstract heldLines(): RelayLine[];

  /** release(), awaited only when it is asynchronous: the sysfs driver gives a line up at once. */
  private async releasing(line: RelayLine): Promise<void> {
    const released = this.release(line);
    if (released) await released;
  }

  private reconnect(again: boolean): Promise<void> {
    this.connecting ??= this.connect(again).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }
}
