import { Gpio } from 'onoff';
import type { Logger } from '../../shared/log.js';
import { DeviceHealth, type ReopenDelay } from './device-health.js';
import {
  type DeviceStatus,
  droppedLines,
  errorText,
  type GateDriver,
  lineKey,
  RelayFault,
  type RelayLine,
} from './gate-driver.js';
import {
  checkLine,
  DEFAULT_GPIO_SYSFS_ROOT,
  describeChip,
  type GpioChip,
  pickChip,
  readSysfsChips,
} from './gpio-chips.js';

export interface GpioDriverOptions {
  /** The chip by label or name; default the board's header chip. */
  device?: string | undefined;
  /**
   * Where chips are listed. onoff itself always exports under /sys/class/gpio; tests fake that tree
   * (mock-fs) and may point discovery elsewhere.
   */
  sysfsRoot?: string | undefined;
  reopenDelayMs?: ReopenDelay | undefined;
  log?: Logger | undefined;
  onCommand?: ((line: RelayLine, energised: boolean) => void) | undefined;
}

/** The raw level written to sysfs: active-low relays energise on 0. */
export function rawLevel(line: RelayLine, energised: boolean): 0 | 1 {
  return energised !== line.activeLow ? 1 : 0;
}

/**
 * Relays on GPIO lines through the sysfs interface (onoff). The sysfs number of a line is its chip's
 * base plus the line offset, read from sysfs rather than assumed (kernel 6.6 moved the bases).
 *
 * Outputs are created in their de-energised state: onoff writes `active_low` 0 (so the values below
 * are raw levels whatever an earlier process left there) and then `direction` `high` or `low`, which
 * the kernel applies together with the direction, so the pin never passes through the wrong level,
 * also when the line is still exported from a previous run.
 */
export class GpioRelayDriver implements GateDriver {
  private readonly health: DeviceHealth;
  private readonly outputs = new Map<string, { line: RelayLine; gpio: Gpio; number: number }>();
  private lines: RelayLine[] = [];
  private chip: GpioChip | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: GpioDriverOptions) {
    this.health = new DeviceHealth(
      () => this.name,
      () => this.reconnect(true),
      options.reopenDelayMs,
      options.log,
    );
  }

  get name(): string {
    const lines = this.lines.map((l) => l.channel).join(', ') || '?';
    const chip = this.chip ? describeChip(this.chip) : (this.options.device ?? 'the header chip');
    return `GPIO line ${lines} on ${chip}`;
  }

  async open(lines: RelayLine[]): Promise<void> {
    const dropped = droppedLines(this.lines, lines);
    this.lines = lines;
    for (const line of dropped) this.release(line);
    if (this.connecting) await this.connecting;
    if (this.health.state !== 'fault') await this.reconnect(false);
  }

  async set(line: RelayLine, energised: boolean): Promise<void> {
    if (this.closed) throw new RelayFault(`${this.name} is closed (the edge is shutting down).`, false);
    if (this.health.state !== 'ok') throw this.health.unavailable();
    const output = this.outputs.get(lineKey(line));
    if (!output) throw new RelayFault(`${this.name}: line ${line.channel} is not configured.`, false);
    this.options.onCommand?.(line, energised);
    try {
      output.gpio.writeSync(rawLevel(line, energised));
    } catch (err) {
      this.health.fault(`writing gpio${output.number}/value failed (${errorText(err)})`);
      throw this.health.unavailable();
    }
  }

  status(): DeviceStatus {
    return { state: this.health.state, error: this.health.error };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.health.close();
    if (this.connecting) await this.connecting;
    for (const { line } of [...this.outputs.values()]) this.release(line);
  }

  private reconnect(redriveExisting: boolean): Promise<void> {
    this.connecting ??= this.connect(redriveExisting).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /**
   * Finds the chip and exports every new line as a de-energised output; after a fault it also drives
   * the lines already exported off again (a failed write may have left one energised).
   */
  private async connect(redriveExisting: boolean): Promise<void> {
    if (this.closed) return;
    try {
      this.chip ??= pickChip(await readSysfsChips(this.options.sysfsRoot), this.options.device);
    } catch (err) {
      return this.health.fault(errorText(err));
    }
    const chip = this.chip;
    for (const line of this.lines) {
      const existing = this.outputs.get(lineKey(line));
      const number = (chip.base ?? 0) + line.channel;
      try {
        if (existing) {
          if (redriveExisting) existing.gpio.writeSync(rawLevel(line, false));
          continue;
        }
        checkLine(chip, line.channel);
        const gpio = new Gpio(number, rawLevel(line, false) ? 'high' : 'low', 'none', { activeLow: false });
        this.outputs.set(lineKey(line), { line, gpio, number });
        // onoff swallows direction errors on a line that was already exported; a write to an input
        // fails, so this confirms the line really is an output at the de-energised level.
        gpio.writeSync(rawLevel(line, false));
      } catch (err) {
        return this.health.fault(exportFailure(number, err));
      }
    }
    this.health.ok();
  }

  /** Drives a line off and unexports it; best effort, the line is being given up anyway. */
  private release(line: RelayLine): void {
    const output = this.outputs.get(lineKey(line));
    if (!output) return;
    this.outputs.delete(lineKey(line));
    try {
      output.gpio.writeSync(rawLevel(line, false));
    } catch (err) {
      this.options.log?.warn(
        { gpio: output.number, error: errorText(err) },
        'could not de-energise GPIO on release',
      );
    }
    try {
      output.gpio.unexport();
    } catch (err) {
      this.options.log?.warn({ gpio: output.number, error: errorText(err) }, 'could not unexport GPIO');
    }
  }
}

/** An export or setup failure, with what the operator should check for the usual causes. */
function exportFailure(number: number, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const what = `setting up sysfs gpio${number} failed (${errorText(err)})`;
  switch (code) {
    case 'EBUSY':
      return `${what}; the line is claimed by a kernel driver or another program (check gpioinfo and device-tree overlays)`;
    case 'EACCES':
    case 'EPERM':
      return `${what}; the service user may not write ${DEFAULT_GPIO_SYSFS_ROOT} (add it to the gpio group)`;
    case 'ENOENT':
      return `${what}; this kernel has no sysfs GPIO export (use driver gpiod)`;
    case 'EINVAL':
      return `${what}; the kernel does not know this GPIO number (check relay.device and relay.channel)`;
    default:
      return err instanceof Error && err.name === 'GpioChipError' ? errorText(err) : what;
  }
}
