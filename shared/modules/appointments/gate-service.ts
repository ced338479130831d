import { DateTime } from 'luxon';
import { canSeeYard, type Principal, visibleOr404, yardFilter } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import { AppError, InvalidTransitionError, NotFoundError } from '../../http/errors.js';
import { arrivalRepo } from './arrival-repo.js';
import {
  type AppointmentAnnouncer,
  type AppointmentViews,
  type ArrivalChange,
  actorOf,
  type GateWriteDeps,
  writeArrivalChange,
} from './gate-writes.js';
import type { AppointmentOutT } from './schema.js';
import { type AppointmentStatus, appointmentStatus } from './status.js';

export type HandStatus = 'docked' | 'completed' | 'scheduled';

/**
 * What staff may set by hand (POST /api/appointment/{id}/status): docked once arrived, completed
 * once arrived or docked, and back to scheduled from a no-show (undo). Anything else is 409
 * invalid-transition, in the clerk's words.
 */
export function handChange(
  status: AppointmentStatus,
  to: HandStatus,
  now: number,
): Pick<ArrivalChange, 'kind' | 'patch'> {
  if (to === 'docked' && status === 'arrived') return { kind: 'docked', patch: { dockedAt: now } };
  if (to === 'completed' && (status === 'arrived' || status === 'docked'))
    return { kind: 'completed', patch: { completedAt: now } };
  if (to === 'scheduled' && status === 'no_show')
    return { kind: 'no_show_undone', patch: { noShowAt: null } };
  throw new InvalidTransitionError(status, to, HAND_REFUSAL[to](status));
}

const HAND_REFUSAL: Record<HandStatus, (status: AppointmentStatus) => string> = {
  docked: (s) => `Only an appointment that has arrived can be marked docked; this one is ${words(s)}.`,
  completed: (s) =>
    `Only an appointment that has arrived or docked can be marked completed; this one is ${words(s)}.`,
  scheduled: (s) => `Only a no-show can be set back to scheduled; this one is ${words(s)}.`,
};

function words(status: AppointmentStatus): string {
  return status === 'no_show' ? 'a no-show' : status;
}

export type GateServiceDeps = Pick<CoreParts, 'kysely'> &
  GateWriteDeps & { announcer: AppointmentAnnouncer; views: AppointmentViews };

/**
 * The gate-side routes of appointments, served everywhere (docs/api.md "Appointments"): status by
 * hand, and today's appointment by its code. Arrival fields only, so a linked edge serves them
 * offline too.
 */
export class GateAppointmentService {
  constructor(private readonly deps: GateServiceDeps) {}

  async changeStatus(
    principal: Principal,
    id: string,
    body: { to: HandStatus; reason?: string | undefined },
  ): Promise<AppointmentOutT> {
    await this.deps.kysely.transaction().execute(async (trx) => {
      const row = visibleOr404(principal, await arrivalRepo.forWrite(trx, id), 'Appointment', id);
      const now = this.deps.clock.now();
      const change = handChange(appointmentStatus(row), body.to, now);
      await writeArrivalChange(this.deps, trx, row, {
        ...change,
        actor: actorOf(principal),
        reason: body.reason || undefined,
        detail: { byHand: true },
      });
    });
    await this.deps.announcer.committed([id]);
    return this.one(id);
  }

  /**
   * Today's appointment (yard-local day of its start) with this code among the caller's yards (a
   * scanner types the code and Enter): letters are matched in upper case, spaces and dashes are
   * ignored. 404 when none starts today.
   */
  async byCode(principal: Principal, rawCode: string, yardId?: string): Promise<AppointmentOutT> {
    const code = normalCode(rawCode);
    const yards = yardFilter(principal, yardId);
    const now = this.deps.clock.now();
    const today = (zone: string) => DateTime.fromMillis(now, { zone }).toISODate();
    const match = (await arrivalRepo.byCode(this.deps.kysely, code, yards)).find(
      (r) =>
        canSeeYard(principal, r.yardId) &&
        DateTime.fromMillis(r.startAt, { zone: r.timeZone }).toISODate() === today(r.timeZone),
    );
    if (!match) {
      throw new AppError(404, 'not-found', 'Not found', `No appointment today has the code ${code}.`);
    }
    return this.one(match.id);
  }

  private async one(id: string): Promise<AppointmentOutT> {
    const [out] = await this.deps.views.outOf([id]);
    if (!out) throw new NotFoundError('Appointment', id);
    return out;
  }
}

/** A code as typed or scanned: upper case, without spaces or dashes. */
export function normalCode(code: string): string {
  return code.replace(/[\s-]+/g, '').toUpperCase();
}
