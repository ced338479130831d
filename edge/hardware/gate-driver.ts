import type { GateDriverState } from '../../shared/hardware.js';

/** One relay output on a device, as the hub hands it to that device's driver. */
export interface RelayLine {
  /** Relay number, GPIO line offset or coil address, as RelayBinding.channel says per driver. */
  channel: number;
  /** gpio, gpiod: the relay energises on a low output. */
  activeLow: boolean;
  /** How long a pulse holds; gpiod uses it to make the energising process end by itself. */
  pulseMs: number;
  /** serial-modbus: the unit on the bus (several units may share one RS-485 port). */
  unitId?: number | undefined;
}

export interface DeviceStatus {
  state: GateDriverState;
  /** What failed and what the operator should check, while state is fault. */
  error?: string | undefined;
}

/**
 * One physical device (a serial board, a GPIO chip, a simulated board) behind the relay hub. Gates
 * that share a device share its driver, so a serial port is opened once and its writes are ordered.
 */
export interface GateDriver {
  /** How operators recognise the device, e.g. "LCUS relay board on /dev/ttyUSB0". */
  readonly name: string;
  /**
   * Opens the device if needed and drives lines to their de-energised state: all of them when the
   * device is (re)opened, otherwise those new or dropped since the last call. Lines already in use
   * are left alone, so reconfiguring one gate never cuts short another gate's pulse. Never rejects
   * for an unavailable device: status() says fault and the driver retries in the background.
   */
  open(lines: RelayLine[]): Promise<void>;
  /** Drives one line; rejects with a RelayFault when the device is faulted or the command fails. */
  set(line: RelayLine, energised: boolean): Promise<void>;
  status(line?: RelayLine): DeviceStatus;
  /** De-energises every line, releases the device and stops background retries. */
  close(): Promise<void>;
}

/**
 * A driver failure. `retrying` says whether the driver is already reopening the device in the
 * background (the operator then only has to fix the cause, not restart anything).
 */
export class RelayFault extends Error {
  constructor(
    message: string,
    readonly retrying: boolean,
  ) {
    super(message);
    this.name = 'RelayFault';
  }
}

export function lineKey(line: RelayLine): string {
  return line.unitId === undefined ? String(line.channel) : `${line.unitId}:${line.channel}`;
}

/** Lines in `previous` that `next` no longer lists (to be de-energised once more, then forgotten). */
export function droppedLines(previous: RelayLine[], next: RelayLine[]): RelayLine[] {
  const kept = new Set(next.map(lineKey));
  return previous.filter((line) => !kept.has(lineKey(line)));
}

/** Lines in `next` that `previous` did not list (to be driven de-energised when they are taken on). */
export function addedLines(previous: RelayLine[], next: RelayLine[]): RelayLine[] {
  return droppedLines(next, previous);
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
