import type { GateDriverStatus, GateHardware, GateRelay, RelayBinding } from '../shared/hardware.js';

/**
 * The cloud's GateHardware: it has no relays of its own. Every gate belongs to an edge, and an
 * actuation at the cloud is forwarded to that edge over MQTT (down/cmd) by the hardware module's
 * ForwardToSite part (plugged for the cloud's role profile) before it could reach here.
 */
export class NoRelays implements GateHardware {
  async configure(_gates: GateRelay[]): Promise<void> {}

  async pulse(gateId: string, _relay: RelayBinding): Promise<{ durationMs: number }> {
    throw new Error(`the cloud drives no relays (gate ${gateId}); actuations go to the gate's edge`);
  }

  status(): GateDriverStatus[] {
    return [];
  }

  async stop(): Promise<void> {}
}
