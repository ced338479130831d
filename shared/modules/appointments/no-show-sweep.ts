import type { CoreParts } from '../../core-parts.js';
import { arrivalRepo } from './arrival-repo.js';
import { type AppointmentAnnouncer, type GateWriteDeps, SYSTEM, writeArrivalChange } from './gate-writes.js';
import { appointmentStatus } from './status.js';

const MINUTE_MS = 60_000;
const BATCH = 200;

export type NoShowSweepDeps = Pick<CoreParts, 'kysely' | 'log'> &
  GateWriteDeps & { announcer: AppointmentAnnouncer };

/**
 * The no-show sweep (docs/domain.md "Appointments"): a scheduled appointment that has not arrived
 * noShowAfterMinutes after its start becomes a no-show, at that moment (noShowAt = startAt +
 * noShowAfterMinutes, however late the sweep runs). It runs where arrivals are known, at the edge of
 * the yard's site (linked, also offline, or standalone): the composition root starts it there and
 * never at the cloud, which shows such an appointment as "overdue, site offline" instead.
 *
 * Once a minute; each appointment in its own transaction, checked again inside it, so a truck
 * checked in meanwhile is never marked (its arrival wins, and a later arrival of a no-show makes it
 * arrived, late: arrivals.ts).
 */
export class NoShowSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<string[]> | null = null;

  constructor(private readonly deps: NoShowSweepDeps) {}

  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.tick().catch((err: unknown) => this.deps.log.error({ err }, 'no-show sweep failed'));
    };
    this.timer = setInterval(tick, MINUTE_MS);
    this.timer.unref();
    setImmediate(tick);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One sweep; a tick while one runs shares it. Returns the appointments marked no-show. */
  tick(): Promise<string[]> {
    this.running ??= this.sweep().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async sweep(): Promise<string[]> {
    const marked: string[] = [];
    for (;;) {
      const due = await arrivalRepo.dueNoShows(this.deps.kysely, this.deps.clock.now(), BATCH);
      let progressed = false;
      for (const { id, dueAt } of due) {
        if (await this.mark(id, dueAt)) {
          marked.push(id);
          progressed = true;
        }
      }
      if (due.length < BATCH || !progressed) break;
    }
    if (marked.length > 0) this.deps.log.info({ count: marked.length }, 'appointments marked no-show');
    await this.deps.announcer.committed(marked);
    return marked;
  }

  private mark(id: string, dueAt: number): Promise<boolean> {
    return this.deps.kysely.transaction().execute(async (trx) => {
      const row = await arrivalRepo.forWrite(trx, id);
      if (!row || appointmentStatus(row) !== 'scheduled' || row.noShowAt !== null) return false;
      await writeArrivalChange(this.deps, trx, row, {
        kind: 'no_show',
        patch: { noShowAt: dueAt },
        actor: SYSTEM,
      });
      return true;
    });
  }
}
