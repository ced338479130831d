import type { Principal } from '../../auth/principal.js';
import { ConflictError } from '../../http/errors.js';
import { type RunAtSiteOfYard, requestedBy } from '../../sync/commands.js';
import type { ActuatedGate, ActuationAttempt, GateRelays } from './relays.js';
import { GateActuationOut, type GateActuationOutT } from './schema.js';

/**
 * The cloud's relays are at the sites: its gate rows are copies of the edges', it drives no relay
 * and has no drivers or serial ports. A person's request to open a gate becomes a command to the
 * edge of the gate's site (down/cmd), whose audited record (or problem) is the answer; nothing is
 * written here, the edge's audit row arrives with the next sync.
 */
export class ForwardToSite implements GateRelays {
  constructor(private readonly deps: { runAtSite: RunAtSiteOfYard }) {}

  async reconfigure(): Promise<void> {}

  async open(gate: ActuatedGate, principal: Principal, reason?: string): Promise<GateActuationOutT> {
    const args = { gateId: gate.id, reason: reason ?? null, requestedBy: requestedBy(principal) };
    return this.deps.runAtSite(gate.yardId, 'actuate', args, GateActuationOut);
  }

  async attempt(gate: ActuatedGate): Promise<ActuationAttempt> {
    // Only a movement could ask (movements are edge-owned, so the write guard refuses it first).
    throw new ConflictError(
      'edge-owned',
      `Gate ${gate.name} is driven by the edge of its site; record the movement there.`,
    );
  }

  async devices() {
    return { drivers: [], serialPorts: [] };
  }

  busy(): boolean {
    return false;
  }

  async settled(): Promise<void> {}
}
