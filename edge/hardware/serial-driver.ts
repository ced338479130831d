import { type OpenOptions, SerialPortStream } from '@serialport/stream';
import type { Logger } from '../../shared/log.js';
import { DeviceHealth, type ReopenDelay } from './device-health.js';
import {
  addedLines,
  type DeviceStatus,
  droppedLines,
  errorText,
  type GateDriver,
  lineKey,
  RelayFault,
  type RelayLine,
} from './gate-driver.js';
import {
  BOARD_NAMES,
  kmtronicFrame,
  lcusFrame,
  modbusWriteCoil,
  numatoCommand,
  parseModbusReply,
  type SerialBoardKind,
} from './serial-protocols.js';

/** A serialport binding: the real one for the platform, or @serialport/binding-mock in tests. */
export type SerialBinding = OpenOptions['binding'];

export interface SerialDriverOptions {
  path: string;
  kind: SerialBoardKind;
  baudRate: number;
  binding: SerialBinding;
  reopenDelayMs?: ReopenDelay | undefined;
  log?: Logger | undefined;
  /** How long a Modbus board may take to answer a coil write. */
  modbusReplyTimeoutMs?: number | undefined;
  /** Called just before a command's bytes are handed to the port. */
  onCommand?: ((line: RelayLine, energised: boolean) => void) | undefined;
}

/** At 9600 baud an 8-byte answer takes about 8 ms; boards answer well within this. */
const DEFAULT_MODBUS_REPLY_TIMEOUT_MS = 500;
/** Bytes kept from what the board sends; more than any answer we parse. */
const RECEIVE_LIMIT = 256;

/** The board answered a command for one relay with a refusal: the port itself is fine. */
class LineRefused extends RelayFault {
  constructor(message: string) {
    super(message, false);
  }
}

/**
 * A relay board on a serial port (USB adapter or RS-485). One instance per port: every gate wired to
 * the board shares the open port, and commands go out one at a time in call order. When the port
 * goes away (unplugged, write error, Modbus board silent) the driver reports a fault and reopens the
 * port in the background; once reopened it drives every relay de-energised before reporting ok.
 */
export class SerialRelayDriver implements GateDriver {
  readonly name: string;
  private readonly health: DeviceHealth;
  private port: SerialPortStream | undefined;
  private lines: RelayLine[] = [];
  private connecting: Promise<void> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private received = Buffer.alloc(0);
  private onReceived: (() => void) | undefined;
  private readonly lineErrors = new Map<string, string>();
  private closed = false;

  constructor(private readonly options: SerialDriverOptions) {
    this.name = `${BOARD_NAMES[options.kind]} on ${options.path}`;
    this.health = new DeviceHealth(
      () => this.name,
      () => this.reconnect(),
      options.reopenDelayMs,
      options.log,
    );
  }

  async open(lines: RelayLine[]): Promise<void> {
    const dropped = droppedLines(this.lines, lines);
    const added = addedLines(this.lines, lines);
    this.lines = lines;
    for (const line of dropped) this.lineErrors.delete(lineKey(line));
    if (this.connecting) await this.connecting;
    if (!this.port && this.health.state === 'opening') return this.reconnect();
    // While faulted the reconnect de-energises every current line once the port is back.
    if (this.port && this.health.state === 'ok')
      await this.deenergise([...dropped, ...added]).catch(() => {});
  }

  async set(line: RelayLine, energised: boolean): Promise<void> {
    if (this.closed) throw new RelayFault(`${this.name} is closed (the edge is shutting down).`, false);
    if (this.connecting && this.health.state === 'opening') await this.connecting;
    if (this.health.state !== 'ok') throw this.health.unavailable();
    await this.command(line, energised);
  }

  status(line?: RelayLine): DeviceStatus {
    if (this.health.state !== 'ok') return { state: this.health.state, error: this.health.error };
    const lineError = line && this.lineErrors.get(lineKey(line));
    return lineError ? { state: 'fault', error: lineError } : { state: 'ok' };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.health.close();
    if (this.connecting) await this.connecting;
    await this.queue;
    const port = this.port;
    if (port && this.health.state === 'ok') {
      await this.deenergise(this.lines).catch((err: unknown) =>
        this.options.log?.error(
          { device: this.name, error: errorText(err) },
          'could not de-energise relays on stop',
        ),
      );
    }
    if (port) await this.retire(port);
    this.port = undefined;
  }

  /** Opens the port and drives every relay de-energised; reports ok or fault through health. */
  private reconnect(): Promise<void> {
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const { binding, path, baudRate } = this.options;
    const port = new SerialPortStream({ binding, path, baudRate, autoOpen: false });
    port.on('error', (err: Error) => this.lost(port, `port error (${err.message})`));
    port.on('close', (err: Error | null) =>
      this.lost(
        port,
        `was disconnected (${err?.message ?? 'port closed'}); check the USB cable and the board's power`,
      ),
    );
    port.on('data', (chunk: Buffer) => this.receive(chunk));
    try {
      await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
    } catch (err) {
      port.removeAllListeners();
      this.health.fault(openFailure(errorText(err)));
      return;
    }
    if (this.closed) return this.retire(port);
    this.port = port;
    try {
      await this.deenergise(this.lines);
      this.health.ok();
    } catch {
      // command() already reported the port lost; the retry is scheduled.
    }
  }

  /** Writes the off command for each line in turn; a board refusing one line does not stop the rest. */
  private async deenergise(lines: RelayLine[]): Promise<void> {
    for (const line of lines) {
      try {
        await this.command(line, false);
      } catch (err) {
        if (!(err instanceof LineRefused)) throw err;
      }
    }
  }

  /** Queues one command so that writes to the port never interleave. */
  private command(line: RelayLine, energised: boolean): Promise<void> {
    const run = () => this.send(line, energised);
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => {});
    return result;
  }

  private async send(line: RelayLine, energised: boolean): Promise<void> {
    const port = this.port;
    if (!port) throw this.health.unavailable();
    const frame = this.frame(line, energised);
    this.received = Buffer.alloc(0);
    this.options.onCommand?.(line, energised);
    try {
      await new Promise<void>((resolve, reject) => {
        port.write(frame, (err) => (err ? reject(err) : resolve()));
      });
    } catch (err) {
      this.lost(port, `write failed (${errorText(err)}); check the USB cable and the board's power`);
      throw this.health.unavailable();
    }
    if (this.options.kind === 'serial-modbus') await this.modbusAnswer(port, line, frame);
  }

  private frame(line: RelayLine, energised: boolean): Buffer {
    switch (this.options.kind) {
      case 'serial-lcus':
        return lcusFrame(line.channel, energised);
      case 'serial-numato':
        return numatoCommand(line.channel, energised);
      case 'serial-kmtronic':
        return kmtronicFrame(line.channel, energised);
      case 'serial-modbus':
        return modbusWriteCoil(line.unitId ?? 1, line.channel, energised);
    }
  }

  /** Waits for the board's answer to a coil write: the echo, an exception, or nothing. */
  private modbusAnswer(port: SerialPortStream, line: RelayLine, request: Buffer): Promise<void> {
    const unit = line.unitId ?? 1;
    const timeoutMs = this.options.modbusReplyTimeoutMs ?? DEFAULT_MODBUS_REPLY_TIMEOUT_MS;
    return new Promise<void>((resolve, reject) => {
      const finish = (outcome: () => void) => {
        clearTimeout(timer);
        this.onReceived = undefined;
        outcome();
      };
      const check = () => {
        const reply = parseModbusReply(request, this.received);
        if (reply.kind === 'incomplete') return;
        if (reply.kind === 'ok') {
          this.lineErrors.delete(lineKey(line));
          return finish(resolve);
        }
        if (reply.kind === 'exception') {
          const error =
            `Modbus unit ${unit} refused coil ${line.channel}: exception ${reply.code} (${reply.meaning}); ` +
            "check relay.channel against the board's coil map";
          this.lineErrors.set(lineKey(line), error);
          return finish(() => reject(new LineRefused(`${this.name}: ${error}.`)));
        }
        finish(() => {
          this.lost(
            port,
            `Modbus unit ${unit} sent an unreadable answer (${reply.reason}); check relay.baudRate`,
          );
          reject(this.health.unavailable());
        });
      };
      const timer = setTimeout(
        () =>
          finish(() => {
            this.lost(
              port,
              `Modbus unit ${unit} did not answer within ${timeoutMs} ms; check the RS-485 wiring (A/B), ` +
                "relay.unitId, relay.baudRate and the board's power",
            );
            reject(this.health.unavailable());
          }),
        timeoutMs,
      );
      this.onReceived = check;
      check();
    });
  }

  private receive(chunk: Buffer): void {
    this.received = Buffer.concat([this.received, chunk]);
    if (this.received.length > RECEIVE_LIMIT) this.received = this.received.subarray(-RECEIVE_LIMIT);
    this.onReceived?.();
  }

  /** The port stopped working: drop it, report the fault (once) and let health reopen it. */
  private lost(port: SerialPortStream, error: string): void {
    if (port !== this.port) return;
    this.port = undefined;
    void this.retire(port);
    this.health.fault(error);
  }

  /** Closes a port we no longer use, ignoring the events its closing raises. */
  private async retire(port: SerialPortStream): Promise<void> {
    port.removeAllListeners();
    port.on('error', () => {});
    if (!port.isOpen) return;
    await new Promise<void>((resolve) => port.close(() => resolve()));
  }
}

/** An open failure, with what the operator should check for the usual causes. */
function openFailure(message: string): string {
  const hint = /no such file|ENOENT|not exist/i.test(message)
    ? 'check that the board is plugged in and relay.device names it (prefer /dev/serial/by-id/...)'
    : /permission denied|EACCES/i.test(message)
      ? 'the service user needs read and write access to the port (add it to the dialout group)'
      : /busy|locked/i.test(message)
        ? 'another program has the port open (a serial console, ModemManager or a second edge)'
        : "check the cable and the board's power";
  return `cannot be opened (${message}); ${hint}`;
}
