import type {
  GateDriverStatus,
  GateHardware,
  GateRelay,
  PulseProgress,
  RelayBinding,
} from '../../shared/hardware.js';
import type { Logger } from '../../shared/log.js';

/**
 * A gate relay that exists only in memory: logs and counts pulses and takes pulseMs like a real
 * relay would. For the demo, for development, and for tests of everything above the driver.
 */
export class SimulatedGates implements GateHardware {
  private readonly gates = new Map<string, { relay: RelayBinding; pulses: number }>();
  /** Every pulse, in order, for tests: gate id, relay binding, start time. */
  readonly history: Array<{ gateId: string; relay: RelayBinding; at: number }> = [];

  constructor(
    private readonly log?: Logger,
    /** Tests set 0 to skip the hold time. */
    private readonly holdScale = 1,
  ) {}

  async configure(gates: GateRelay[]): Promise<void> {
    const listed = new Set(gates.map((g) => g.gateId));
    for (const gateId of this.gates.keys()) if (!listed.has(gateId)) this.gates.delete(gateId);
    for (const { gateId, relay } of gates) {
      this.gates.set(gateId, { relay, pulses: this.gates.get(gateId)?.pulses ?? 0 });
    }
  }

  async pulse(
    gateId: string,
    relay: RelayBinding,
    progress?: PulseProgress,
  ): Promise<{ durationMs: number }> {
    const started = Date.now();
    this.history.push({ gateId, relay, at: started });
    const gate = this.gates.get(gateId);
    this.gates.set(gateId, { relay, pulses: (gate?.pulses ?? 0) + 1 });
    this.log?.info({ gateId, channel: relay.channel, pulseMs: relay.pulseMs }, 'simulated relay pulse');
    progress?.energised();
    if (this.holdScale > 0) await new Promise((r) => setTimeout(r, relay.pulseMs * this.holdScale));
    return { durationMs: Date.now() - started };
  }

  status(): GateDriverStatus[] {
    return [...this.gates].map(([gateId, { relay, pulses }]) => ({
      gateId,
      driver: relay.driver,
      channel: relay.channel,
      state: 'simulated' as const,
      pulses,
    }));
  }

  async stop(): Promise<void> {}
}
