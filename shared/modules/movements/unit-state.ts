import { canSeeYard, type Principal } from '../../auth/principal.js';
import { ConflictError } from '../../http/errors.js';
import type { MovementCreateT } from './schema.js';

/** The unit as a clerk names it: its number or plate (a unit picked from a list is sent by id). */
export function unitLabel(
  kind: 'trailer' | 'truck',
  row: { id: string; number?: string | null; plate?: string | null } | undefined,
  input: MovementCreateT,
): string {
  return kind === 'trailer'
    ? `Trailer ${input.trailer?.number ?? row?.number ?? row?.id}`
    : `Truck ${input.truck?.plate ?? row?.plate ?? row?.id}`;
}

/**
 * Where the unit is against the movement: a check-in of a unit already in a yard, or a check-out of
 * one not in this yard, needs `force`. A yard the caller cannot see is never named, and a scoped
 * caller cannot check a unit out of it (a forced check-in stays possible: the unit is at this gate).
 */
export function checkUnitState(
  kind: 'trailer' | 'truck',
  row: { id: string; yardId: string | null; number?: string | null; plate?: string | null } | undefined,
  input: MovementCreateT,
  principal: Principal,
  warnings: string[],
): void {
  const label = unitLabel(kind, row, input);
  const yardId = row?.yardId ?? null;
  const visible = yardId === null || canSeeYard(principal, yardId);
  if (input.direction === 'in' && yardId !== null) {
    // Words a clerk reads (no ids: `yardId` carries the yard); the route says how to force it.
    const detail =
      visible && yardId === input.yardId
        ? `${label} is already in this yard (checked in, not checked out).`
        : `${label} is already in another yard.`;
    if (!input.force)
      throw new ConflictError(
        'already-in-yard',
        `${detail} Check it out first, or record the check-in anyway.`,
        visible ? { unit: kind, yardId } : { unit: kind },
      );
    warnings.push(`already-in-yard: ${detail}`);
  }
  if (input.direction === 'out' && yardId !== input.yardId && !visible) {
    throw new ConflictError(
      'not-in-yard',
      `${label} is not in this yard but in one outside your yard scope; only a user who can see that yard can check it out (force does not apply).`,
      { unit: kind },
    );
  }
  if (input.direction === 'out' && yardId !== input.yardId) {
    const detail = `${label} is not in this yard.`;
    if (!input.force)
      throw new ConflictError('not-in-yard', `${detail} Check the number, or record the check-out anyway.`, {
        unit: kind,
        yardId,
      });
    warnings.push(`not-in-yard: ${detail}`);
  }
}
