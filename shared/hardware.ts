/**
 * How the API reaches gate relays. The edge wires the relay hub (edge/hardware/relay-hub.ts), which
 * picks a GateDriver per gate from its relay binding (GPIO via onoff, libgpiod CLI, serial relay
 * boards via serialport, simulated); tests use the simulated one or real drivers on fakes.
 */
export interface RelayBinding {
  driver:
    | 'simulated'
    | 'gpio'
    | 'gpiod'
    | 'serial-lcus'
    | 'serial-numato'
    | 'serial-kmtronic'
    | 'serial-modbus';
  /**
   * Relay channel / GPIO line. gpio, gpiod: line offset on the chip. serial-lcus, serial-kmtronic:
   * relay number from 1. serial-numato: relay index from 0. serial-modbus: coil address from 0.
   */
  channel: number;
  pulseMs: number;
  /** The relay energises when the output is driven low (GPIO and gpiod only). */
  activeLow: boolean;
  /**
   * gpio, gpiod: the GPIO chip (label such as `pinctrl-bcm2711`, or name such as `gpiochip0`);
   * default: the board's header chip. serial-*: the serial device path (e.g. /dev/ttyUSB0).
   */
  device?: string | undefined;
  /** serial-*: line speed; default 9600. */
  baudRate?: number | undefined;
  /** serial-modbus: the board's Modbus unit (slave) address; default 1. */
  unitId?: number | undefined;
}

export interface GateRelay {
  gateId: string;
  relay: RelayBinding;
}

import type { GateDriverState } from './enums.js';

export type { GateDriverState };

export interface GateDriverStatus {
  gateId: string;
  driver: RelayBinding['driver'];
  device?: string | undefined;
  channel: number;
  state: GateDriverState;
  /** What the driver reported when it last failed (state fault), e.g. the port vanished. */
  error?: string | undefined;
  pulses: number;
}

export interface SerialPortSeen {
  path: string;
  manufacturer?: string | undefined;
  serialNumber?: string | undefined;
  vendorId?: string | undefined;
  productId?: string | undefined;
}

/** What a pulse reports while it runs. */
export interface PulseProgress {
  /** The relay is energised (called at most once, before the pulse's promise settles). */
  energised(): void;
}

export interface GateHardware {
  /**
   * Makes these the gates the hardware serves: opens the devices they use and drives every relay to
   * its de-energised state. Called at start and whenever a gate's binding changes; a gate no longer
   * listed is de-energised and forgotten. A device that cannot be opened is reported in status()
   * (state fault) and retried in the background; configure() itself does not reject for that.
   */
  configure(gates: GateRelay[]): Promise<void>;
  /**
   * Energise, hold pulseMs, de-energise; resolves once the relay is de-energised again. Rejects with
   * HardwareFaultError on a driver fault, at energising or at de-energising. `progress.energised` is
   * called once the energising command was written (and acknowledged, where the protocol answers):
   * the gate is opening, and the caller may answer before the pulse ends (docs/domain.md "Gate
   * actuation"). A binding that differs from the configured one is configured first.
   */
  pulse(gateId: string, relay: RelayBinding, progress?: PulseProgress): Promise<{ durationMs: number }>;
  status(): GateDriverStatus[];
  /** Serial ports the box can see, to help fill in relay.device; absent where there are none. */
  serialPorts?(): Promise<SerialPortSeen[]>;
  /** Drive every relay to its de-energised state and close the devices. */
  stop(): Promise<void>;
}
