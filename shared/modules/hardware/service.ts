import { canSeeYard, type Principal } from '../../auth/principal.js';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { AppError, ConflictError, HardwareFaultError, NotFoundError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import { type RunAtSiteOfYard, requestedBy } from '../../sync/commands.js';
import type { SettingsService } from '../settings/service.js';
import { actuationOut, parseRelay } from './records.js';
import { type GateActuationRow, type GateRow, HardwareRepo } from './repo.js';
import { GateActuationOut, type GateActuationOutT, type HardwareStatusOutT } from './schema.js';

export interface ActuationRequest {
  requestedBy: string | null;
  requestedVia: 'local' | 'cloud';
  reason?: string | null | undefined;
  /** The gate movement that asked for this pulse. */
  movementId?: string | null | undefined;
  /**
   * Asked right before the relay pulses; an error refuses the pulse (audited). A cloud command uses
   * it to refuse once its deadline has passed (edge/sync/command-handler.ts).
   */
  guard?: () => AppError | undefined;
}

/** An audited actuation and, unless it pulsed, the error that explains why not. */
export interface ActuationAttempt {
  actuation: GateActuationOutT;
  error?: AppError;
}

const MINUTE_MS = 60_000;

/** A gate as actuation needs it: which relay, in which yard, named how in messages. */
export type ActuatedGate = Pick<GateRow, 'id' | 'yardId' | 'name' | 'relay'>;

export type HardwareDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes' | 'log' | 'gates'> & {
  /** `gate.maxActuationsPerMinute`. */
  settings: Pick<SettingsService, 'get'>;
  /** Cloud: a gate is pulsed by the edge of its site (a down/cmd command). */
  runAtSite: RunAtSiteOfYard;
};

/**
 * Gate actuation: one relay pulse per request, one at a time per gate, at most
 * `gate.maxActuationsPerMinute` pulses per gate and minute; every request leaves a gate_actuation row.
 */
export class HardwareService {
  private readonly repo: HardwareRepo;
  private readonly busyGates = new Set<string>();
  private configuring: Promise<void> = Promise.resolve();

  constructor(private readonly deps: HardwareDeps) {
    this.repo = new HardwareRepo(deps.kysely);
  }

  /**
   * Hands every gate's relay binding to the hardware, which opens the devices and de-energises the
   * relays. Run at start and after any gate write; a device fault shows in status(), it never throws.
   * The cloud drives no relays: its gate rows are copies of the edges' (their relays are at the sites).
   */
  async reconfigure(): Promise<void> {
    const run = async () => {
      const gates = this.relaysAtSites ? [] : await this.repo.gatesWithRelay();
      const relays = gates.flatMap((g) => {
        const relay = parseRelay(g.relay);
        return relay ? [{ gateId: g.id, relay }] : [];
      });
      await this.deps.gates.configure(relays);
    };
    // One at a time, and the last call always runs after the last write it follows.
    const next = this.configuring.then(run, run);
    this.configuring = next.catch((err: unknown) => {
      this.deps.log.error({ err }, 'configuring the gate relays failed');
    });
    await this.configuring;
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
   * Cloud: the gate's edge pulses it (a down/cmd command) and its audited record is the answer; its
   * refusals and faults come back as the edge's problem. Nothing is written here: the edge's audit
   * row arrives with the next sync.
   */
  /**
   * A person's request to open a gate: pulsed here, or, where the relays are at the sites (the
   * cloud), by the gate's edge. A refusal or fault is thrown after its audit record is written.
   */
  async actuateFor(gate: ActuatedGate, principal: Principal, reason?: string): Promise<GateActuationOutT> {
    if (this.relaysAtSites) return this.actuateAtSite(gate, principal, reason);
    const { actuation, error } = await this.attempt(gate, {
      requestedBy: principal.name,
      requestedVia: 'local',
      reason,
    });
    if (error) throw error;
    return actuation;
  }

  async actuateAtSite(gate: ActuatedGate, principal: Principal, reason?: string): Promise<GateActuationOutT> {
    const args = { gateId: gate.id, reason: reason ?? null, requestedBy: requestedBy(principal) };
    return this.deps.runAtSite(gate.yardId, 'actuate', args, GateActuationOut);
  }

  /** Like actuate, but reports a refusal or fault in the answer instead of throwing. */
  async attempt(gate: ActuatedGate, request: ActuationRequest): Promise<ActuationAttempt> {
    if (this.relaysAtSites) {
      // Only a movement could get here at the cloud; the relay is at the site (actuateAtSite).
      throw new ConflictError(
        'edge-owned',
        `Gate ${gate.name} is driven by the edge of its site; record the movement there.`,
      );
    }
    const at = this.deps.clock.now();
    const relay = parseRelay(gate.relay);
    if (!relay) {
      return this.refuse(gate, request, at, new ConflictError('no-relay', `Gate ${gate.name} has no relay.`));
    }
    // Checked and set with no await in between: the second of two concurrent requests sees it.
    if (this.busyGates.has(gate.id)) {
      const busy = new ConflictError('gate-busy', `Gate ${gate.name} is being actuated; try again shortly.`);
      return this.refuse(gate, request, at, busy);
    }
    this.busyGates.add(gate.id);
    try {
      const limited = await this.rateLimit(gate, at);
      if (limited) return this.refuse(gate, request, at, limited);
      const refused = request.guard?.();
      if (refused) return this.refuse(gate, request, at, refused);
      try {
        const { durationMs } = await this.deps.gates.pulse(gate.id, relay);
        return { actuation: await this.record(gate, request, at, 'ok', durationMs, null) };
      } catch (err) {
        const fault =
          err instanceof HardwareFaultError
            ? err
            : new HardwareFaultError(`Relay driver failed: ${(err as Error).message ?? String(err)}`);
        const actuation = await this.record(gate, request, at, 'fault', null, fault.detail);
        return { actuation, error: fault };
      }
    } finally {
      this.busyGates.delete(gate.id);
    }
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
   * At the cloud there are no local drivers or serial ports: every site's gates are listed with
   * their last audited actuation (synced from the edge) and state idle / fault from it; busy is
   * only known at the edge.
   */
  async status(principal: Principal): Promise<HardwareStatusOutT> {
    const allGates = await this.repo.gatesWithRelay();
    const gates = allGates.filter((g) => canSeeYard(principal, g.yardId));
    // A driver is shown to whoever sees its gate's yard (one the database no longer knows: only to
    // principals who see every yard); another yard's relay wiring is not a scoped user's business.
    const yardOfGate = new Map(allGates.map((g) => [g.id, g.yardId]));
    const drivers = this.relaysAtSites
      ? []
      : this.deps.gates.status().filter((d) => canSeeYard(principal, yardOfGate.get(d.gateId)));
    const latest = new Map((await this.repo.latestPerGate(gates.map((g) => g.id))).map((a) => [a.gateId, a]));
    const ports = this.relaysAtSites ? [] : ((await this.deps.gates.serialPorts?.()) ?? []);
    return {
      drivers: drivers.map((d) => ({ ...d, ...(d.error === undefined ? {} : { error: d.error }) })),
      serialPorts: ports.map(
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
          busy: this.busyGates.has(gate.id),
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

  /** The cloud's case (NoRelays): the relays are at the sites and actuations go there (actuateAtSite). */
  get relaysAtSites(): boolean {
    return this.deps.gates.relaysAtSites === true;
  }

  private async rateLimit(gate: ActuatedGate, at: number): Promise<AppError | undefined> {
    const max = await this.deps.settings.get('gate.maxActuationsPerMinute');
    const recent = await this.repo.pulsesSince(gate.id, at - MINUTE_MS);
    if (recent.length < max) return undefined;
    const freesAt = (recent[recent.length - max]?.at ?? at) + MINUTE_MS;
    const retryAfterSec = Math.max(1, Math.ceil((freesAt - at) / 1000));
    return new AppError(
      429,
      'rate-limited',
      'Too many requests',
      `Gate ${gate.name} was actuated ${recent.length} times in the last minute (limit ${max}). Try again in ${retryAfterSec} s.`,
      undefined,
      { retryAfterSec },
    );
  }

  private async refuse(
    gate: ActuatedGate,
    request: ActuationRequest,
    at: number,
    error: AppError,
  ): Promise<ActuationAttempt> {
    const actuation = await this.record(gate, request, at, 'refused', null, `${error.code}: ${error.detail}`);
    return { actuation, error };
  }

  private async record(
    gate: ActuatedGate,
    request: ActuationRequest,
    at: number,
    result: GateActuationRow['result'],
    durationMs: number | null,
    error: string | null,
  ): Promise<GateActuationOutT> {
    const row = await this.deps.changes.insert(this.deps.kysely, 'gateActuation', {
      id: newId(),
      gateId: gate.id,
      yardId: gate.yardId,
      requestedBy: request.requestedBy,
      requestedVia: request.requestedVia,
      reason: request.reason ?? null,
      at,
      result,
      durationMs: durationMs === null ? null : Math.round(durationMs),
      error,
      movementId: request.movementId ?? null,
      createdAt: this.deps.clock.now(),
    });
    return actuationOut(row);
  }
}
