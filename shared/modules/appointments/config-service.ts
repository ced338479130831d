import { canSeeYard, type Principal } from '../../auth/principal.js';
import type { CoreParts } from '../../core-parts.js';
import { NotFoundError, PreconditionFailedError, ValidationError } from '../../http/errors.js';
import type { YardService } from '../yards/service.js';
import { configOut } from './out.js';
import { AppointmentRepo } from './repo.js';
import type { SchedulingConfigOutT, SchedulingConfigPutT } from './schema.js';

export type ConfigDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'> & {
  yards: Pick<YardService, 'getRow'>;
};

/** A yard's scheduling config (docs/domain.md "Appointments"): one row per yard, the defaults until written. */
export class SchedulingConfigService {
  private readonly repo: AppointmentRepo;

  constructor(private readonly deps: ConfigDeps) {
    this.repo = new AppointmentRepo(deps.kysely);
  }

  async get(principal: Principal, yardId: string): Promise<SchedulingConfigOutT> {
    await this.visibleYard(principal, yardId);
    return configOut(yardId, await this.repo.configOf(yardId));
  }

  /** Writes the whole config; with If-Match the version read (0: the yard had none yet). */
  async put(
    principal: Principal,
    yardId: string,
    input: SchedulingConfigPutT,
    expectedVersion?: number,
  ): Promise<SchedulingConfigOutT> {
    // Ownership first (a linked edge answers cloud-owned), before anything else is read.
    this.deps.changes.assertMayWrite('schedulingConfig');
    await this.visibleYard(principal, yardId);
    assertConsistent(input);
    const values = {
      enabled: input.enabled ? 1 : 0,
      openHours: JSON.stringify(input.openHours),
      closedDates: JSON.stringify([...new Set(input.closedDates)].sort()),
      slotMinutes: input.slotMinutes,
      leadTimeMinMinutes: input.leadTimeMinMinutes,
      leadTimeMaxDays: input.leadTimeMaxDays,
      changeCutoffMinutes: input.changeCutoffMinutes,
      lateGraceMinutes: input.lateGraceMinutes,
      noShowAfterMinutes: input.noShowAfterMinutes,
      freeTimeMinutes: input.freeTimeMinutes,
    };
    const row = await this.deps.kysely.transaction().execute(async (trx) => {
      const current = await this.repo.configOf(yardId, trx);
      if (!current) {
        if (expectedVersion !== undefined && expectedVersion !== 0) throw new PreconditionFailedError(0);
        const now = this.deps.clock.now();
        return this.deps.changes.insert(trx, 'schedulingConfig', {
          yardId,
          ...values,
          createdAt: now,
          updatedAt: now,
        });
      }
      return this.deps.changes.update(
        trx,
        'schedulingConfig',
        yardId,
        values,
        expectedVersion === undefined ? {} : { expectedVersion },
      );
    });
    return configOut(yardId, row);
  }

  /** The yard, 404 when it does not exist or is outside the caller's yards. */
  private async visibleYard(principal: Principal, yardId: string) {
    if (!canSeeYard(principal, yardId)) throw new NotFoundError('Yard', yardId);
    return this.deps.yards.getRow(yardId);
  }
}

/** Rules across fields the schema cannot say alone; every problem at once, nothing written. */
function assertConsistent(input: SchedulingConfigPutT): void {
  const errors: Array<{ path: string; message: string; code: string }> = [];
  if (input.noShowAfterMinutes < input.lateGraceMinutes) {
    errors.push({
      path: 'noShowAfterMinutes',
      code: 'below-late-grace',
      message: 'The no-show time must be at least the late grace time.',
    });
  }
  for (const [day, spans] of Object.entries(input.openHours)) {
    (spans ?? []).forEach((span, i) => {
      if (span.from >= span.to || span.from === '24:00') {
        errors.push({
          path: `openHours.${day}.${i}`,
          code: 'empty-span',
          message: 'An opening span must end after it starts.',
        });
      }
    });
  }
  if (errors.length > 0) throw new ValidationError(errors);
}
