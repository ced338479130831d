import type { Logger } from '../../shared/log.js';
import {
  addedLines,
  type DeviceStatus,
  droppedLines,
  type GateDriver,
  lineKey,
  type RelayLine,
} from './gate-driver.js';

/**
 * A relay board that exists only in memory, for gates bound to driver `simulated` (the demo,
 * development, tests of the hub). Keeps each line's state and every command, and logs pulses.
 */
export class SimulatedRelayDriver implements GateDriver {
  readonly name = 'simulated relay board';
  /** Line (channel, or unit:coil) to energised, as a real board would hold it. */
  readonly energised = new Map<string, boolean>();
  /** Every command, in order. */
  readonly commands: Array<{ channel: number; energised: boolean }> = [];
  private lines: RelayLine[] = [];

  constructor(
    private readonly log?: Logger,
    private readonly onCommand?: (line: RelayLine, energised: boolean) => void,
  ) {}

  async open(lines: RelayLine[]): Promise<void> {
    const dropped = droppedLines(this.lines, lines);
    const added = addedLines(this.lines, lines);
    this.lines = lines;
    for (const line of [...dropped, ...added]) this.drive(line, false);
    for (const line of dropped) this.energised.delete(lineKey(line));
  }

  async set(line: RelayLine, energised: boolean): Promise<void> {
    this.drive(line, energised);
    if (energised) this.log?.info({ channel: line.channel, pulseMs: line.pulseMs }, 'simulated relay pulse');
  }

  status(): DeviceStatus {
    return { state: 'simulated' };
  }

  async close(): Promise<void> {
    for (const line of this.lines) this.drive(line, false);
    this.lines = [];
  }

  private drive(line: RelayLine, energised: boolean): void {
    this.onCommand?.(line, energised);
    this.commands.push({ channel: line.channel, energised });
    this.energised.set(lineKey(line), energised);
  }
}
