/**
 * How the API reaches gate relays. The edge wires real drivers (GPIO, gpiod, serial boards) or the
 * simulated one; tests use the simulated one. Issue-4 drivers implement the same interface.
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
  /** Relay channel / GPIO line. */
  channel: number;
  pulseMs: number;
  activeLow: boolean;
  /** Serial device path or GPIO chip, where the driver needs one. */
  device?: string | undefined;
}

export interface GateDriverStatus {
  gateId: string;
  driver: string;
  state: 'ok' | 'fault' | 'simulated';
  error?: string | undefined;
  pulses: number;
}

export interface GateHardware {
  /** Energise, hold pulseMs, de-energise. Rejects with HardwareFaultError on a driver fault. */
  pulse(gateId: string, relay: RelayBinding): Promise<{ durationMs: number }>;
  status(): GateDriverStatus[];
  /** Drive every relay to its de-energised state. */
  stop(): Promise<void>;
}
