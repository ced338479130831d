import type { Kdb } from '../../db/database.js';
import { isUniqueViolation } from '../../db/sql-helpers.js';
import { NotFoundError, PreconditionFailedError } from '../../http/errors.js';
import { newAppointmentCode } from './codes.js';
import type { AppointmentRepo, AppointmentRow } from './repo.js';

/**
 * The transaction every booking write runs in (docs/domain.md "Booking rules"): it first takes the
 * lock of each yard-local day the booking touches, in date order (repo.lockDays), so two bookings
 * of a day run one after the other and the second sees the first, also with several cloud nodes
 * on one database. Inside it: the row as locked for the write, and a code free in the yard.
 */

/** `work` in one transaction that holds the yard's day locks of `days` (sorted: no lock cycle). */
export function underDayLocks<T>(
  kysely: Kdb,
  repo: Pick<AppointmentRepo, 'lockDays'>,
  yardId: string,
  days: readonly string[],
  work: (trx: Kdb) => Promise<T>,
): Promise<T> {
  return kysely.transaction().execute(async (trx) => {
    await repo.lockDays(trx, yardId, days);
    return work(trx);
  });
}

/** The row inside the transaction, locked for the write; a stale If-Match is 412. */
export async function lockedCurrent(
  repo: Pick<AppointmentRepo, 'byIdForWrite'>,
  trx: Kdb,
  id: string,
  expectedVersion: number | undefined,
): Promise<AppointmentRow> {
  const row = await repo.byIdForWrite(trx, id);
  if (!row) throw new NotFoundError('Appointment', id);
  if (expectedVersion !== undefined && expectedVersion !== row.version)
    throw new PreconditionFailedError(row.version);
  return row;
}

/** A code free in the yard; read under the day lock, so only a booking of another day can race it. */
export async function freeCode(
  repo: Pick<AppointmentRepo, 'codeTaken'>,
  trx: Kdb,
  yardId: string,
): Promise<string> {
  for (;;) {
    const code = newAppointmentCode();
    if (!(await repo.codeTaken(trx, yardId, code))) return code;
  }
}

/** A booking of another day that drew the same code at the same moment: the unique index refuses one; it tries again. */
export async function retryTakenCode(work: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= 3) throw err;
    }
  }
}
