import {
  canSeeYard,
  carrierOf,
  type Principal,
  visibleToCarrierOr404,
  yardFilter,
} from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { NotFoundError } from '../../http/errors.js';
import type { YardService } from '../yards/service.js';
import { carrierAppointmentOut, carrierHistoryOut } from './carrier-rules.js';
import { appointmentEventOut, appointmentOut } from './out.js';
import { AppointmentRepo, type AppointmentView } from './repo.js';
import type { AppointmentListQueryT, AppointmentOutT } from './schema.js';

export type AppointmentDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes' | 'bus'> & {
  yards: Pick<YardService, 'getRow'>;
  /**
   * Whether this process is the cloud: there `overdue` flags a scheduled appointment past its
   * no-show time whose site is offline (out.ts); an edge runs the no-show sweep itself.
   */
  atCloud: boolean;
};

/**
 * Appointments (docs/domain.md "Appointments"): reads, the one mapping to the HTTP shape and the
 * live event. Booking, rescheduling and cancelling are booking.ts (AppointmentBooking), the gate's
 * transitions the gate files; each publishes `appointment.changed` through `publishChanged`.
 */
export class AppointmentService {
  readonly repo: AppointmentRepo;

  constructor(private readonly deps: AppointmentDeps) {
    this.repo = new AppointmentRepo(deps.kysely);
  }

  /**
   * One appointment with its history; 404 when absent, outside the caller's yards or (a carrier
   * user) of another carrier. A carrier user reads it without the yard's own business
   * (carrier-rules.ts).
   */
  async get(principal: Principal, id: string) {
    const view = await this.visibleView(principal, id);
    const history = carrierHistoryOut(principal, (await this.repo.events(id)).map(appointmentEventOut));
    return { ...this.outFor(principal, view), history };
  }

  /**
   * By start time. A carrier user lists its own carrier's only: a filter naming another carrier,
   * or a yard outside its scope, is an empty page (as if there were none), never an error.
   */
  async list(principal: Principal, query: AppointmentListQueryT) {
    const own = carrierOf(principal);
    const after = query.cursor ? decodeCursor(query.cursor, 2) : undefined;
    const otherCarrier = own !== null && query.carrierId !== undefined && query.carrierId !== own;
    const outOfScope = own !== null && query.yardId !== undefined && !canSeeYard(principal, query.yardId);
    if (otherCarrier || outOfScope) return { items: [], nextCursor: null };
    const rows = await this.repo.list({
      yardIds: yardFilter(principal, query.yardId),
      carrierId: own ?? query.carrierId,
      statuses: query.status,
      from: query.from === undefined ? undefined : Date.parse(query.from),
      to: query.to === undefined ? undefined : Date.parse(query.to),
      q: query.q,
      limit: query.limit,
      after: after ? { startAt: Number(after[0]), id: String(after[1]) } : undefined,
    });
    return toPage(
      rows,
      query.limit,
      (r) => this.outFor(principal, r),
      (r) => [r.startAt, r.id],
    );
  }

  /** The appointment as the API shows it (for other parts of the module, e.g. the gate's lookups). */
  async view(id: string, db: Kdb = this.deps.kysely): Promise<AppointmentOutT> {
    const view = await this.repo.viewById(id, db);
    if (!view) throw new NotFoundError('Appointment', id);
    return this.out(view);
  }

  /**
   * The appointment's view, 404 when absent, of a yard outside the caller's yards or (a carrier
   * user) of another carrier.
   */
  async visibleView(principal: Principal, id: string): Promise<AppointmentView> {
    return visibleToCarrierOr404(principal, await this.repo.viewById(id), 'Appointment', id);
  }

  out(view: AppointmentView): AppointmentOutT {
    return appointmentOut(view, { atCloud: this.deps.atCloud, now: this.deps.clock.now() });
  }

  /** The appointment as the caller may read it (a carrier user: carrier-rules.ts). */
  outFor(principal: Principal, view: AppointmentView): AppointmentOutT {
    return carrierAppointmentOut(principal, this.out(view));
  }

  /** After commit: the live event of a changed appointment (docs/api.md "Live events"). */
  publishChanged(appointment: AppointmentOutT): void {
    this.deps.bus.publish({ type: 'appointment.changed', yardId: appointment.yardId, data: appointment });
  }
}
