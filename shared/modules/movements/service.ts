import { type Principal, visibleOr404, yardFilter } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import type { GateActuation } from './actuate.js';
import type { MovementRecorder } from './group-commit.js';
import { movementOut, visitOut } from './out.js';
import type { GatePictures } from './pictures.js';
import { publishMovement } from './publish.js';
import type { MovementAppointments } from './record.js';
import { MovementRepo } from './repo.js';
import type {
  MovementCreatedT,
  MovementCreateT,
  MovementListQueryT,
  MovementOutT,
  VisitListQueryT,
} from './schema.js';
import type { MovementChecks } from './validate.js';

/**
 * The steps of a gate movement, each in its own file, built by the composition root
 * (shared/services.ts) and run in order by `create` (docs/architecture.md, walkthrough 1).
 */
export type MovementDeps = Pick<CoreParts, 'kysely' | 'clock' | 'bus'> & {
  /** validate.ts: scope, ownership, evidence, time, the driver check. */
  checks: MovementChecks;
  /** pictures.ts: the gate cameras' pictures (snapshot: true). */
  pictures: GatePictures;
  /** group-commit.ts + record.ts: the rules and writes in a shared transaction. */
  recorder: MovementRecorder;
  /** actuate.ts: the relay pulse after the commit (actuate: true), and the actuations of movements. */
  actuation: GateActuation;
  /** The appointments module: announces the appointments a movement changed, after the commit. */
  appointments: Pick<MovementAppointments, 'committed'>;
};

export class MovementService {
  private readonly repo: MovementRepo;

  constructor(private readonly deps: MovementDeps) {
    this.repo = new MovementRepo(deps.kysely);
  }

  /**
   * A gate check-in / check-out as one straight line: validate -> pictures -> record -> actuate ->
   * publish. Each step runs once, in its own file, and calls no earlier step nor this file.
   * Pictures come before the record (the vehicle is still at the barrier, and the movement lists
   * them); the relay pulses after the commit (the movement stands whatever the gate does).
   */
  async create(input: MovementCreateT, principal: Principal): Promise<MovementCreatedT> {
    const { at, driver } = await this.deps.checks.check(input, principal);
    const snapshots = await this.deps.pictures.take(input, principal);
    const recorded = await this.deps.recorder.run(input, { principal, at, driver, snapshots });
    const actuation =
      input.actuate && recorded.gate
        ? await this.deps.actuation.pulse(recorded.gate, recorded.movement, principal)
        : null;
    const created = publishMovement(this.deps.bus, recorded, actuation, snapshots);
    await this.deps.appointments.committed(recorded.appointmentIds);
    return created;
  }

  async get(id: string, principal: Principal): Promise<MovementOutT> {
    const row = visibleOr404(principal, await this.repo.movement(id), 'Movement', id);
    const linked = await this.deps.actuation.of([row.id]);
    return movementOut(row, linked.get(row.id) ?? null);
  }

  async list(query: MovementListQueryT, principal: Principal) {
    const after = query.cursor ? decodeCursor(query.cursor, 2) : undefined;
    const rows = await this.repo.list({
      ...query,
      yardIds: this.yardFilter(query.yardId, principal),
      after: after ? { at: Number(after[0]), id: String(after[1]) } : undefined,
    });
    const pageRows = rows.slice(0, query.limit);
    const actuationOf = await this.deps.actuation.of(pageRows.map((r) => r.id));
    return toPage(
      rows,
      query.limit,
      (r) => movementOut(r, actuationOf.get(r.id) ?? null),
      (r) => [r.at, r.id],
    );
  }

  async listVisits(query: VisitListQueryT, principal: Principal) {
    const after = query.cursor ? decodeCursor(query.cursor, 2) : undefined;
    const rows = await this.repo.listVisits({
      ...query,
      yardIds: this.yardFilter(query.yardId, principal),
      after: after ? { at: Number(after[0]), id: String(after[1]) } : undefined,
    });
    const now = this.deps.clock.now();
    return toPage(
      rows,
      query.limit,
      (r) => visitOut(r, now),
      (r) => [r.inAt, r.id],
    );
  }

  /**
   * Where each unit was last seen at a gate: its latest visit (open: in the yard since inAt;
   * closed: left at outAt through outGateId). Keyed by unit id; units never checked in are absent.
   */
  async latestVisits(
    kind: 'trailer' | 'truck',
    ids: string[],
  ): Promise<Map<string, { yardId: string; inAt: number; outAt: number | null; outGateId: string | null }>> {
    const rows = await this.repo.latestVisits(kind, ids);
    const byUnit = new Map<
      string,
      { yardId: string; inAt: number; outAt: number | null; outGateId: string | null }
    >();
    // Newest id first: two visits with the same check-in time (a correction) leave the newer one.
    for (const r of rows) {
      if (!byUnit.has(r.unitId))
        byUnit.set(r.unitId, { yardId: r.yardId, inAt: r.inAt, outAt: r.outAt, outGateId: r.outGateId });
    }
    return byUnit;
  }

  /** The yards a list may show: the asked one (if in scope), else the principal's scope (undefined = all). */
  private yardFilter(yardId: string | undefined, principal: Principal): string[] | undefined {
    return yardFilter(principal, yardId) ?? undefined;
  }
}
