import { toIso } from '../../clock.js';
import type { Direction } from '../../enums.js';
import { ValidationError } from '../../http/errors.js';
import type { MovementRepo } from './repo.js';

type UnitRef = { kind: 'trailer'; id: string; label: string } | { kind: 'truck'; id: string; label: string };

/**
 * Visits are never inverted (docs/domain.md "Gate movements and visits"): a movement that closes a visit (a check-out, or a forced
 * check-in that ends the unit's unrecorded stay) may not be dated before that visit's check-in, and
 * a check-in may not be dated before the unit's last check-out (its visits would overlap). A movement
 * dated at the same instant as the other end is fine. Checked before any write: a refusal is 400 on
 * `at` and stores nothing.
 */
export async function assertVisitOrder(
  repo: Pick<MovementRepo, 'visitBounds'>,
  units: UnitRef[],
  move: { direction: Direction; at: number; closesOpenVisit: boolean },
): Promise<void> {
  for (const unit of units) {
    const bounds = await repo.visitBounds(
      unit.kind === 'trailer' ? { kind: 'trailer', trailerId: unit.id } : { kind: 'truck', truckId: unit.id },
    );
    if (move.closesOpenVisit && bounds.openInAt !== null && move.at < bounds.openInAt) {
      throw refusal(
        `must not be before the check-in of the visit it closes (${toIso(bounds.openInAt)})`,
        `${unit.label} was checked in at ${toIso(bounds.openInAt)}; a movement that ends that visit cannot be dated before it.`,
      );
    }
    if (move.direction === 'in' && bounds.lastOutAt !== null && move.at < bounds.lastOutAt) {
      throw refusal(
        `must not be before the unit's last check-out (${toIso(bounds.lastOutAt)})`,
        `${unit.label} was checked out at ${toIso(bounds.lastOutAt)}; a check-in dated before it would overlap that visit.`,
      );
    }
  }
}

function refusal(message: string, detail: string): ValidationError {
  return new ValidationError([{ path: 'body.at', message, code: 'visit-inverted' }], detail);
}
