import { SerialPort } from 'serialport';
import type { RelayBinding } from '../../shared/hardware.js';
import type { Logger } from '../../shared/log.js';
import type { ReopenDelay } from './device-health.js';
import type { GateDriver, RelayLine } from './gate-driver.js';
import { GpioRelayDriver } from './gpio-driver.js';
import { GpiodRelayDriver } from './gpiod-driver.js';
import type { GpiosetVersion } from './gpioset-cli.js';
import { MisconfiguredDriver } from './misconfigured-driver.js';
import { type SerialBinding, SerialRelayDriver } from './serial-driver.js';
import { BOARD_NAMES, isSerialBoard, unaddressable } from './serial-protocols.js';
import { SimulatedRelayDriver } from './simulated-driver.js';

/** The settings drivers are created with. */
export interface DriverSettings {
  log?: Logger | undefined;
  /** serialport binding; default the platform's real one. Tests pass @serialport/binding-mock. */
  serialBinding?: SerialBinding | undefined;
  /** Where GPIO chips are listed (default /sys/class/gpio). */
  gpioSysfsRoot?: string | undefined;
  /** The libgpiod gpioset executable (default `gpioset` on PATH); gpiodetect is looked up next to it. */
  gpiosetCommand?: string | undefined;
  /** Background reopen backoff for a faulted device (default 1 s doubling to 30 s). */
  reopenDelayMs?: ReopenDelay | undefined;
  /** How long a Modbus board may take to answer (default 500 ms). */
  modbusReplyTimeoutMs?: number | undefined;
}

export type OnCommand = (line: RelayLine, energised: boolean) => void;

/** What planning needs from the hub: the settings, a device's command hook, the gpioset version. */
export interface DriverFactory {
  settings: DriverSettings;
  commandHook(device: () => string): OnCommand | undefined;
  gpiosetVersion(command: string): Promise<GpiosetVersion>;
}

/** The device a gate's relay uses: its key (one driver per key), what must match to share it, its driver. */
export interface DevicePlan {
  key: string;
  signature: string;
  driver: () => GateDriver;
}

const DEFAULT_BAUD_RATE = 9600;

/** Which device a binding uses (its key), and how to create that device's driver. */
export function planDevice(
  gateId: string,
  relay: RelayBinding,
  wanted: Map<string, { signature: string }>,
  factory: DriverFactory,
): DevicePlan {
  const { log, reopenDelayMs } = factory.settings;
  /** A driver whose commands are reported under its own name. */
  const hooked =
    <D extends GateDriver>(make: (onCommand: OnCommand | undefined) => D) =>
    (): D => {
      const driver: D = make(factory.commandHook(() => driver.name));
      return driver;
    };
  const misconfigured = (problem: string) => ({
    key: `misconfigured:${gateId}`,
    signature: problem,
    driver: () => new MisconfiguredDriver(`${relay.driver} relay of gate ${gateId}`, problem),
  });
  switch (relay.driver) {
    case 'simulated': {
      const key = `simulated:${relay.device ?? ''}`;
      return {
        key,
        signature: key,
        driver: hooked((onCommand) => new SimulatedRelayDriver(log, onCommand)),
      };
    }
    case 'gpio': {
      // Each sysfs line is independent, so each is its own device: one failing line faults only its gate.
      const key = `gpio:${relay.device ?? ''}:${relay.channel}`;
      return {
        key,
        signature: key,
        driver: hooked(
          (onCommand) =>
            new GpioRelayDriver({
              device: relay.device,
              sysfsRoot: factory.settings.gpioSysfsRoot,
              reopenDelayMs,
              log,
              onCommand,
            }),
        ),
      };
    }
    case 'gpiod': {
      const key = `gpiod:${relay.device ?? ''}:${relay.channel}`;
      const command = factory.settings.gpiosetCommand ?? 'gpioset';
      return {
        key,
        signature: key,
        driver: hooked(
          (onCommand) =>
            new GpiodRelayDriver({
              device: relay.device,
              command,
              version: () => factory.gpiosetVersion(command),
              reopenDelayMs,
              log,
              onCommand,
            }),
        ),
      };
    }
    default: {
      const kind = relay.driver;
      if (!isSerialBoard(kind)) return misconfigured(`unknown relay driver "${kind}"`);
      if (!relay.device)
        return misconfigured(`${kind} needs relay.device, the serial port (e.g. /dev/ttyUSB0)`);
      const unitId = kind === 'serial-modbus' ? (relay.unitId ?? 1) : undefined;
      const problem = unaddressable(kind, relay.channel, unitId);
      if (problem) return misconfigured(problem);
      const key = `serial:${relay.device}`;
      const baudRate = relay.baudRate ?? DEFAULT_BAUD_RATE;
      const signature = `${kind}@${baudRate}`;
      const sharing = wanted.get(key);
      if (sharing && sharing.signature !== signature) {
        return misconfigured(
          `${relay.device} is configured as ${BOARD_NAMES[kind]} at ${baudRate} baud here but as ` +
            `${sharing.signature.replace('@', ' at ')} baud for another gate; one port carries one board`,
        );
      }
      return {
        key,
        signature,
        driver: hooked(
          (onCommand) =>
            new SerialRelayDriver({
              path: relay.device!,
              kind,
              baudRate,
              binding: factory.settings.serialBinding ?? SerialPort.binding,
              reopenDelayMs,
              log,
              modbusReplyTimeoutMs: factory.settings.modbusReplyTimeoutMs,
              onCommand,
            }),
        ),
      };
    }
  }
}
