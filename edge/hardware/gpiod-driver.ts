import { setTimeout as sleep } from 'node:timers/promises';
import { errorText, lineKey, type RelayLine } from './gate-driver.js';
import { checkLine, type GpioChip, parseGpiodetect, pickChip } from './gpio-chips.js';
import { GpioLineDriver, type GpioLineOptions } from './gpio-line-driver.js';
import {
  type GpiosetVersion,
  gpiodetectCommand,
  holdArgs,
  type LineRequest,
  pulseArgs,
  runGpiodetect,
  setAndExitArgs,
} from './gpioset-cli.js';
import {
  describeExit,
  failed,
  gpiosetStarted,
  lastLine,
  type Running,
  spawnGpioset,
  stop,
} from './gpioset-process.js';
export interface GpiodDriverOptions extends GpioLineOptions {
  /** The gpioset executable (a name on PATH or a path). */
  command: string;
  /** The installed gpioset's major version, detected once per hub. */
  version: () => Promise<GpiosetVersion>;
}

/** How long de-energising waits for a pulse process to end on its own before stopping it. */
const PULSE_END_GRACE_MS = 250;

/**
 * Relays on GPIO lines through libgpiod's `gpioset` (boxes without sysfs GPIO). A line is held only
 * while a gpioset process runs, so between pulses a holder process keeps it de-energised; a pulse
 * replaces the holder with a process that energises for pulseMs and exits by itself (v2 also drives
 * the line back to inactive first), then a new holder takes the line at its de-energised level.
 */
export class GpiodRelayDriver extends GpioLineDriver {
  private readonly running = new Map<string, Running>();
  private version: GpiosetVersion | undefined;

  constructor(protected override readonly options: GpiodDriverOptions) {
    super(options);
  }

  get name(): string {
    const lines = this.lines.map((l) => l.channel).join(', ') || '?';
    return `GPIO line ${lines} on ${this.chip?.name ?? this.options.device ?? 'the header chip'} (gpioset)`;
  }

  protected async drive(line: RelayLine, energised: boolean): Promise<void> {
    this.options.onCommand?.(line, energised);
    const previous = this.running.get(lineKey(line));
    // A pulse process ends by itself after pulseMs (v2 de-energising first); let it, rather than
    // kill it a moment early, unless the hold was cut short.
    if (!energised && previous?.kind === 'pulse')
      await Promise.race([previous.exited, sleep(PULSE_END_GRACE_MS)]);
    // A v1 pulse process reports a failed request only by exiting non-zero; look before replacing it.
    const pulseFailed =
      !energised && previous?.kind === 'pulse' && previous.proc.exitCode ? previous : undefined;
    try {
      await this.replace(line, energised ? 'pulse' : 'hold');
    } catch (err) {
      this.health.fault(errorText(err));
      throw this.health.unavailable();
    }
    if (pulseFailed) {
      this.health.fault(
        `gpioset could not energise line ${line.channel} (${lastLine(pulseFailed.stderr) || describeExit(pulseFailed.proc)})`,
      );
      throw this.health.unavailable();
    }
  }

  protected heldLines(): RelayLine[] {
    return this.lines;
  }

  /**
   * Learns the gpioset version and the chip, then starts a de-energised holder for each new line, or
   * after a fault for every line.
   */
  protected async connect(restartAll: boolean): Promise<void> {
    if (this.closed) return;
    try {
      this.version ??= await this.options.version();
      this.chip ??= await this.resolveChip();
      for (const line of this.lines) if (this.chip.ngpio > 0) checkLine(this.chip, line.channel);
      for (const line of this.lines) {
        if (restartAll || !this.running.has(lineKey(line))) await this.replace(line, 'hold');
      }
    } catch (err) {
      return this.health.fault(errorText(err));
    }
    this.health.ok();
  }

  /** gpioset takes a chip by name, number or path; a label (or no device) is looked up with gpiodetect. */
  private async resolveChip(): Promise<GpioChip> {
    const device = this.options.device;
    if (device && /^(gpiochip\d+|\d+|\/dev\/\S+)$/.test(device))
      return { name: device, label: device, ngpio: 0 };
    const listing = await runGpiodetect(gpiodetectCommand(this.options.command));
    return pickChip(parseGpiodetect(listing), device);
  }

  /** Stops the line's current gpioset and starts the next one, resolving once it holds the line. */
  private async replace(line: RelayLine, kind: 'hold' | 'pulse'): Promise<void> {
    const previous = this.running.get(lineKey(line));
    if (previous) await stop(previous);
    if (this.closed && kind === 'pulse') throw new Error('the edge is shutting down');
    const req = this.request(line);
    const version = this.version ?? 1;
    const args = kind === 'hold' ? holdArgs(version, req, 0) : pulseArgs(version, req, line.pulseMs);
    const running = spawnGpioset(this.options.command, args, kind);
    this.running.set(lineKey(line), running);
    running.proc.once('exit', () => {
      if (kind !== 'hold' || running.stopping || this.closed || this.running.get(lineKey(line)) !== running)
        return;
      this.health.fault(
        `gpioset holding line ${line.channel} exited (${lastLine(running.stderr) || describeExit(running.proc)})`,
      );
    });
    await gpiosetStarted(this.options.command, running, version, kind === 'hold');
  }

  /** De-energises a line for good: stop its process and set it inactive with a process that exits. */
  protected async release(line: RelayLine): Promise<void> {
    const current = this.running.get(lineKey(line));
    this.running.delete(lineKey(line));
    if (current) await stop(current);
    if (!this.version || !this.chip) return;
    const final = spawnGpioset(
      this.options.command,
      setAndExitArgs(this.version, this.request(line), 0),
      'hold',
    );
    final.stopping = true;
    await final.exited;
    if (failed(final)) {
      this.options.log?.warn(
        { line: line.channel, error: lastLine(final.stderr) },
        'gpioset could not de-energise the line on release',
      );
    }
  }

  private request(line: RelayLine): LineRequest {
    return { chip: this.chip?.name ?? '0', line: line.channel, activeLow: line.activeLow };
  }
}
