import { canSeeYard, type Principal } from '../../auth/principal.js';
import { toIso } from '../../clock.js';
import type { Kdb } from '../../db/database.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { NotFoundError } from '../../http/errors.js';
import { actuationOut, parseRelay } from './records.js';
import type { ActuatedGate, ActuationAttempt, ActuationRequest, GateRelays } from './relays.js';
import { type GateActuationRow, type GateRow, HardwareRepo } from './repo.js';
import type { GateActuationOutT, HardwareStatusOutT } from './schema.js';

export type { ActuatedGate, ActuationAttempt, ActuationRequest } from './relays.js';

export interface HardwareDeps {
  kysely: Kdb;
  /** Where the relays are: LocalRelays at an edge, ForwardToSite at the cloud (shared/role-parts.ts). */
  relays: GateRelays;
}

/**
 * Gate actuation and its audit log. Whether a pulse happens here or at the gate's site is the
 * plugged relays part's; this service finds the gate, checks the caller's yards and reports.
 */
export class HardwareService {
  private readonly repo: HardwareRepo;

  constructor(private readonly deps: HardwareDeps) {
    this.repo = new HardwareRepo(deps.kysely);
  }

  /**
   * Hands every gate's relay binding to the hardware, which opens the devices and de-energises the
   * relays. Run at start and after any gate write; a device fault shows in status(), it never throws.
   */
  async reconfigure(): Promise<void> {
    await this.deps.relays.reconfigure();
  }

  /**
   * Resolves once every pulse answered when it energised has ended and its record is complete: the
   * app's stop awaits it, so a shutdown neither loses the end of a pulse nor writes after the database closed.
   */
  settled(): Promise<void> {
    return this.deps.relays.settled();
  }

  /** Pulses the gate's relay; throws (after auditing) when refused or faulted. */
  async actuate(gateId: string, request: ActuationRequest): Promise<GateActuationOutT> {
    const { actuation, error } = await this.attempt(await this.gateRow(gateId), request);
    if (error) throw error;
    return actuation;
  }

  async gateRow(gateId: string, principal?: Principal): Promise<GateRow> {
    const gate = await this.repo.gateById(gateId);
    if (!gate || (principal && !canSeeYard(principal, gate.yardId))) throw new NotFoundError('Gate', gateId);
    return gate;
  }

  /**
   * A person's request to open a gate: pulsed here, or, where the relays are at the sites (the
   * cloud), by the gate's edge. A refusal or fault is thrown after its audit record is written.
   */
  async actuateFor(gate: ActuatedGate, principal: Principal, reason?: string): Promise<GateActuationOutT> {
    return this.deps.relays.open(gate, principal, reason);
  }

  /** Like actuate, but reports a refusal or fault in the answer instead of throwing. */
  async attempt(gate: ActuatedGate, request: ActuationRequest): Promise<ActuationAttempt> {
    return this.deps.relays.attempt(gate, request);
  }

  async list(
    gateId: string,
    principal: Principal,
    opts: { limit: number; cursor?: string | undefined; result?: GateActuationRow['result'] | undefined },
  ) {
    await this.gateRow(gateId, principal);
    const after = opts.cursor ? decodeCursor(opts.cursor, 2) : undefined;
    const rows = await this.repo.list({
      gateId,
      limit: opts.limit,
      result: opts.result,
      after: after ? { at: Number(after[0]), id: String(after[1]) } : undefined,
    });
    return toPage(rows, opts.limit, actuationOut, (r) => [r.at, r.id]);
  }

  /**
   * Where the relays are at the sites (the cloud) there are no local drivers or serial ports: every
   * site's gates are listed with their last audited actuation (synced from the edge) and state idle
   * / fault from it; busy is only known at the edge.
   */
  async status(principal: Principal): Promise<HardwareStatusOutT> {
    const allGates = await this.repo.gatesWithRelay();
    const gates = allGates.filter((g) => canSeeYard(principal, g.yardId));
    // A driver is shown to whoever sees its gate's yard (one the database no longer knows: only to
    // principals who see every yard); another yard's relay wiring is not a scoped user's business.
    const yardOfGate = new Map(allGates.map((g) => [g.id, g.yardId]));
    const devices = await this.deps.relays.devices();
    const drivers = devices.drivers.filter((d) => canSeeYard(principal, yardOfGate.get(d.gateId)));
    const latest = new Map((await this.repo.latestPerGate(gates.map((g) => g.id))).map((a) => [a.gateId, a]));
    return {
      drivers: drivers.map((d) => ({ ...d, ...(d.error === undefined ? {} : { error: d.error }) })),
      serialPorts: devices.serialPorts.map(
        (p) => Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as typeof p,
      ),
      gates: gates.map((gate) => {
        const relay = parseRelay(gate.relay);
        const last = latest.get(gate.id);
        const driver = drivers.find((d) => d.gateId === gate.id);
        return {
          gateId: gate.id,
          yardId: gate.yardId,
          name: gate.name,
          driver: relay?.driver ?? 'unknown',
          channel: relay?.channel ?? 0,
          state: driver?.state ?? (last?.result === 'fault' ? 'fault' : 'idle'),
          busy: this.deps.relays.busy(gate.id),
          lastActuation: last ? { at: toIso(last.at), result: last.result, error: last.error } : null,
        };
      }),
    };
  }

  /** The audited actuation each of these movements asked for (movement id -> actuation id). */
  async actuationsOfMovements(movementIds: string[]): Promise<Map<string, string>> {
    const linked = await this.repo.byMovement(movementIds);
    return new Map(linked.flatMap((a) => (a.movementId ? [[a.movementId, a.id] as const] : [])));
  }
}
