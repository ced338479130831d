import type { Principal } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import type { GateHardware, RelayBinding } from '../../hardware.js';
import { AppError, ConflictError, HardwareFaultError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import type { SettingsService } from '../settings/service.js';
import { actuationOut, parseRelay } from './records.js';
import type { ActuatedGate, ActuationAttempt, ActuationRequest, GateRelays } from './relays.js';
import { type GateActuationRow, HardwareRepo } from './repo.js';
import type { GateActuationOutT } from './schema.js';

const MINUTE_MS = 60_000;

export type LocalRelaysDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes' | 'log' | 'gates' | 'bus'> & {
  /** `gate.maxActuationsPerMinute`. */
  settings: Pick<SettingsService, 'get'>;
};

/**
 * An edge's relays, wired to this box (GateHardware: the relay hub, or simulated gates): one pulse
 * per request, one at a time per gate (for the whole pulse), at most `gate.maxActuationsPerMinute`
 * pulses per gate and minute; every request leaves a gate_actuation row. A pulse is answered as soon
 * as its relay is energised; its record is completed when the relay is de-energised again.
 */
export class LocalRelays implements GateRelays {
  private readonly repo: HardwareRepo;
  private readonly busyGates = new Set<string>();
  /** Pulses answered when they energised whose end is not recorded yet. */
  private readonly finishing = new Set<Promise<void>>();
  private configuring: Promise<void> = Promise.resolve();

  constructor(private readonly deps: LocalRelaysDeps) {
    this.repo = new HardwareRepo(deps.kysely);
  }

  /**
   * Hands every gate's relay binding to the hardware, which opens the devices and de-energises the
   * relays. A device fault shows in devices(), it never throws.
   */
  async reconfigure(): Promise<void> {
    const run = async () => {
      const gates = await this.repo.gatesWithRelay();
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

  async open(gate: ActuatedGate, principal: Principal, reason?: string): Promise<GateActuationOutT> {
    const { actuation, error } = await this.attempt(gate, {
      requestedBy: principal.name,
      requestedVia: 'local',
      reason,
    });
    if (error) throw error;
    return actuation;
  }

  async attempt(gate: ActuatedGate, request: ActuationRequest): Promise<ActuationAttempt> {
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
    // Once the relay is energised the gate stays busy until the pulse's end is recorded (finish()).
    let holding = false;
    try {
      const limited = await this.rateLimit(gate, at);
      if (limited) return this.refuse(gate, request, at, limited);
      const refused = request.guard?.();
      if (refused) return this.refuse(gate, request, at, refused);
      const pulse = startPulse(this.deps.gates, gate.id, relay);
      await Promise.race([pulse.energised, pulse.ended]);
      if (pulse.energisedAt() === undefined) {
        // Failed before the relay energised (or hardware that does not say when it energises).
        try {
          const { durationMs } = await pulse.done;
          return { actuation: await this.record(gate, request, at, 'ok', durationMs, null) };
        } catch (err) {
          const fault = toFault(err);
          const actuation = await this.record(gate, request, at, 'fault', null, fault.detail);
          return { actuation, error: fault };
        }
      }
      // The gate is opening: answer now, the pulse ends in the background (docs/domain.md "Gate actuation").
      holding = true;
      const recorded = this.record(gate, request, at, 'ok', null, null);
      this.track(this.finish(gate, recorded, pulse));
      return { actuation: await recorded };
    } finally {
      if (!holding) this.busyGates.delete(gate.id);
    }
  }

  /** Resolves once every pulse that was answered before its end has ended and been recorded. */
  async settled(): Promise<void> {
    while (this.finishing.size > 0) await Promise.allSettled([...this.finishing]);
  }

  async devices() {
    return { drivers: this.deps.gates.status(), serialPorts: (await this.deps.gates.serialPorts?.()) ?? [] };
  }

  busy(gateId: string): boolean {
    return this.busyGates.has(gateId);
  }

  /**
   * The end of a pulse answered when it energised: its record gets how long the relay was held
   * (energised to de-energised), or result fault with what the driver reported when the relay could
   * not be de-energised; `gate.released` announces it. The gate stays busy until then. A device that
   * failed stays in fault (hardware status) and refuses the next pulse until it works again.
   */
  private async finish(
    gate: ActuatedGate,
    recorded: Promise<GateActuationOutT>,
    pulse: RunningPulse,
  ): Promise<void> {
    try {
      let patch: { durationMs: number } | { result: 'fault'; durationMs: null; error: string };
      try {
        await pulse.done;
        patch = { durationMs: Math.round(performance.now() - (pulse.energisedAt() ?? 0)) };
      } catch (err) {
        const fault = toFault(err);
        this.deps.log.error(
          { gateId: gate.id, error: fault.detail },
          'gate relay fault at the end of a pulse',
        );
        patch = { result: 'fault', durationMs: null, error: fault.detail };
      }
      const actuation = await recorded.catch(() => undefined);
      if (!actuation) return; // its error went to the caller; nothing to complete
      const row = await this.deps.changes.update(this.deps.kysely, 'gateActuation', actuation.id, patch);
      if (row) this.deps.bus.publish({ type: 'gate.released', yardId: row.yardId, data: actuationOut(row) });
    } catch (err) {
      this.deps.log.error({ err, gateId: gate.id }, 'recording the end of a gate pulse failed');
    } finally {
      this.busyGates.delete(gate.id);
    }
  }

  private track(work: Promise<void>): void {
    this.finishing.add(work);
    void work.finally(() => this.finishing.delete(work));
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

interface RunningPulse {
  /** Resolves when the hardware reports the relay energised (never, if it fails first). */
  energised: Promise<void>;
  /** The pulse's end: resolved when de-energised, rejected on a fault. */
  done: Promise<{ durationMs: number }>;
  /** Settles with done, never rejects. */
  ended: Promise<void>;
  /** performance.now() when the relay energised; undefined until then. */
  energisedAt(): number | undefined;
}

function startPulse(gates: GateHardware, gateId: string, relay: RelayBinding): RunningPulse {
  let energisedAt: number | undefined;
  let energised!: () => void;
  const whenEnergised = new Promise<void>((resolve) => (energised = resolve));
  const done = gates.pulse(gateId, relay, {
    energised: () => {
      energisedAt ??= performance.now();
      energised();
    },
  });
  const ended = done.then(
    () => undefined,
    () => undefined,
  );
  return { energised: whenEnergised, done, ended, energisedAt: () => energisedAt };
}

function toFault(err: unknown): HardwareFaultError {
  return err instanceof HardwareFaultError
    ? err
    : new HardwareFaultError(`Relay driver failed: ${(err as Error).message ?? String(err)}`);
}
