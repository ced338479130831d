import { Gpio } from 'onoff';
import { errorText, lineKey, RelayFault, type RelayLine } from './gate-driver.js';
import { checkLine, DEFAULT_GPIO_SYSFS_ROOT, describeChip, pickChip, readSysfsChips } from './gpio-chips.js';
import { GpioLineDriver, type GpioLineOptions } from './gpio-line-driver.js';

export interface GpioDriverOptions extends GpioLineOptions {
  /**
   * Where chips are listed. onoff itself always exports under /sys/class/gpio; tests fake that tree
   * (mock-fs) and may point discovery elsewhere.
   */
  sysfsRoot?: string | undefined;
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
export class GpioRelayDriver extends GpioLineDriver {
  private readonly outputs = new Map<string, { line: RelayLine; gpio: Gpio; number: number }>();

  constructor(protected override readonly options: GpioDriverOptions) {
    super(options);
  }

  get name(): string {
    const lines = this.lines.map((l) => l.channel).join(', ') || '?';
    const chip = this.chip ? describeChip(this.chip) : (this.options.device ?? 'the header chip');
    return `GPIO line ${lines} on ${chip}`;
  }

  protected async drive(line: RelayLine, energised: boolean): Promise<void> {
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

  protected heldLines(): RelayLine[] {
    return [...this.outputs.values()].map((o) => o.line);
  }

  /**
   * Finds the chip and exports every new line as a de-energised output; after a fault it also drives
   * the lines already exported off again (a failed write may have left one energised).
   */
  protected async connect(redriveExisting: boolean): Promise<void> {
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
  protected release(line: RelayLine): void {
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
