import type { Principal } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import type { Direction } from '../../enums.js';
import type { RowPatch } from '../../sync/change-capture.js';
import { type Actor, writeHistory } from './history.js';
import type { AppointmentRow } from './repo.js';
import type { AppointmentOutT } from './schema.js';
import { appointmentStatus } from './status.js';

/** History kinds of the gate side (the appointment_event kinds of docs/domain.md "Appointments"). */
export type ArrivalKind = 'arrived' | 'docked' | 'completed' | 'departed' | 'no_show' | 'no_show_undone';

export type { Actor };

/** A yard event, the no-show sweep. */
export const SYSTEM: Actor = { id: null, kind: 'system' };

export function actorOf(principal: Principal): Actor {
  return { id: principal.id, kind: principal.kind };
}

export interface ArrivalChange {
  kind: ArrivalKind;
  /** Only arrival fields (docs/sync.md "Conflict rules": the site's part of an appointment). */
  patch: Pick<
    RowPatch<'appointment'>,
    'arrivedAt' | 'arrival' | 'movementId' | 'dockedAt' | 'completedAt' | 'departedAt' | 'noShowAt'
  >;
  actor: Actor;
  reason?: string | undefined;
  detail?: Record<string, unknown> | undefined;
}

/** A gate movement as the appointments see it (the movements module's row; only these fields). */
export interface GateMovement {
  id: string;
  yardId: string;
  direction: Direction;
  at: number;
  trailerId: string | null;
  truckId: string | null;
  locationId: string | null;
  appointmentId: string | null;
}

export type GateWriteDeps = Pick<CoreParts, 'changes' | 'clock'>;

/**
 * The one write of the gate side: the appointment's arrival fields and its history row, in the
 * caller's transaction (each change is one appointment_event, docs/domain.md "Appointments").
 * Returns the row as written.
 */
export async function writeArrivalChange(
  deps: GateWriteDeps,
  trx: Kdb,
  row: AppointmentRow,
  change: ArrivalChange,
): Promise<AppointmentRow> {
  const written = (await deps.changes.update(trx, 'appointment', row.id, {
    ...change.patch,
    updatedAt: deps.clock.now(),
  })) as AppointmentRow;
  await writeHistory(deps, trx, {
    appointment: row,
    kind: change.kind,
    from: appointmentStatus(row),
    to: appointmentStatus(written),
    actor: change.actor,
    reason: change.reason,
    detail: change.detail,
  });
  return written;
}

/** Appointments as the API shows them (AppointmentService.view: out.ts), and their live event. */
export interface AppointmentViews {
  /** The appointments that exist of these ids. */
  outOf(ids: string[]): Promise<AppointmentOutT[]>;
  /** `appointment.changed` (AppointmentService.publishChanged). */
  publishChanged(out: AppointmentOutT): void;
}

/** A write still in its transaction is looked for again this often, this many times. */
const RETRY_MS = 25;
const RETRIES = 40;

/**
 * Publishes `appointment.changed` (the appointment as the API shows it, to the open /api/events
 * streams of staff who may see its yard) for appointments changed by a committed transaction.
 */
export class AppointmentAnnouncer {
  /** Appointment id -> the version a write inside some other module's transaction left. */
  private readonly waiting = new Map<string, { version: number; tries: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: Pick<CoreParts, 'log'> & { views: AppointmentViews }) {}

  /** After the commit of the transaction that changed them. Never throws: the change stands. */
  async committed(ids: Iterable<string>): Promise<void> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return;
    try {
      for (const out of await this.deps.views.outOf(unique)) this.publish(out);
    } catch (err) {
      this.deps.log.error({ err }, 'appointment.changed not published');
    }
  }

  /**
   * For a change made inside another module's transaction, which has no after-commit step for it
   * (a yard event observed on a trailer write): published once the appointment is read at this
   * version (the transaction committed), dropped when it never is (it rolled back).
   */
  whenCommitted(id: string, version: number): void {
    const prev = this.waiting.get(id);
    this.waiting.set(id, { version: Math.max(version, prev?.version ?? 0), tries: 0 });
    this.schedule(0);
  }

  private schedule(delay: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delay);
    this.timer.unref();
  }

  private async flush(): Promise<void> {
    const batch = [...this.waiting];
    try {
      const outs = new Map((await this.deps.views.outOf(batch.map(([id]) => id))).map((o) => [o.id, o]));
      for (const [id, want] of batch) {
        const out = outs.get(id);
        if (this.waiting.get(id) !== want) continue; // a newer write came meanwhile
        if (out && out.version >= want.version) {
          this.waiting.delete(id);
          this.publish(out);
        } else if (want.tries >= RETRIES) this.waiting.delete(id);
        else want.tries += 1;
      }
    } catch (err) {
      this.deps.log.error({ err }, 'appointment.changed not published');
      this.waiting.clear();
    }
    if (this.waiting.size > 0) this.schedule(RETRY_MS);
  }

  private publish(out: AppointmentOutT): void {
    this.deps.views.publishChanged(out);
  }
}
