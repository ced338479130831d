import { type DeviceStatus, type GateDriver, RelayFault } from './gate-driver.js';

/**
 * Stands in for a device the hub cannot drive because the gate's relay binding is unusable (no
 * serial device, a channel the board cannot address, two board types on one port). Retrying does
 * not help, so it only reports what to fix.
 */
export class MisconfiguredDriver implements GateDriver {
  constructor(
    readonly name: string,
    private readonly problem: string,
  ) {}

  async open(): Promise<void> {}

  async set(): Promise<void> {
    throw new RelayFault(
      `${this.name} cannot be driven: ${this.problem}. Fix the gate's relay binding.`,
      false,
    );
  }

  status(): DeviceStatus {
    return { state: 'fault', error: `${this.problem}; fix the gate's relay binding` };
  }

  async close(): Promise<void> {}
}
