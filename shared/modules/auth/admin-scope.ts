import type { Principal } from '../../auth/principal.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../http/errors.js';

/**
 * The admin scope rule, in one place. An admin's yard scope bounds what it administers, so a
 * yard-scoped admin cannot make itself (or anyone) an admin of the whole organisation:
 * - an admin without a yard scope (yardIds null) manages every user and API key;
 * - a yard-scoped admin manages only users and API keys whose scope is a non-empty subset of its
 *   own yards; others are invisible to it (lists leave them out, one by id is 404, as a record of a
 *   yard outside one's scope is elsewhere);
 * - no one grants a scope it does not hold: a yard-scoped admin gives only non-empty subsets of its
 *   own yards (403 otherwise), so it cannot widen any scope, its own included, nor create an
 *   unscoped user or key; every yard named must exist (400 on the field);
 * - settings apply to the whole site or organisation: changing them needs an admin without a scope.
 * The same test in SQL, for the lists: AuthRepo's `scopeWithin`.
 */
export type YardScope = string[] | null;

/** Which of the given yard ids exist (the yards module answers: YardService.existingYardIds). */
export interface ExistingYards {
  existingYardIds(yardIds: string[]): Promise<string[]>;
}

/** Whether `scope` lies inside what `actor` administers. */
export function isWithinScope(actor: Principal, scope: YardScope): boolean {
  if (actor.yardIds === null) return true;
  if (scope === null || scope.length === 0) return false;
  const own = new Set(actor.yardIds);
  return scope.every((yardId) => own.has(yardId));
}

/** 404 for a user or key the actor does not administer: it is outside the actor's view. */
export function assertManages(actor: Principal, scope: YardScope, what: string, id: string): void {
  if (!isWithinScope(actor, scope)) throw new NotFoundError(what, id);
}

/**
 * Before giving `scope` to a user or key: 403 when it reaches beyond the actor's own yards, then
 * 400 (at `path`, e.g. body.yardIds) for each yard that does not exist.
 */
export async function assertMayGrant(
  yards: ExistingYards,
  actor: Principal,
  scope: YardScope,
  path: string,
): Promise<void> {
  if (!isWithinScope(actor, scope)) {
    throw new ForbiddenError(
      scope === null
        ? 'Your admin role is limited to some yards: give a yardIds list within them (only an admin without a yard scope may grant every yard).'
        : `Your admin role is limited to yards ${(actor.yardIds ?? []).join(', ') || '(none)'}: give a non-empty list of those yards.`,
    );
  }
  if (scope === null || scope.length === 0) return;
  const existing = new Set(await yards.existingYardIds(scope));
  const errors = scope.flatMap((yardId, i) =>
    existing.has(yardId)
      ? []
      : [{ path: `${path}.${i}`, message: `no yard with id ${yardId}`, code: 'unknown-yard' }],
  );
  if (errors.length > 0)
    throw new ValidationError(errors, 'A yard in yardIds does not exist; nothing was changed.');
}

/** 403 unless the actor has no yard scope: for what reaches beyond any yard (settings, sync's dead letters). */
export function assertOrganisationWide(actor: Principal, what: string): void {
  if (actor.yardIds !== null) {
    throw new ForbiddenError(
      `${what} reach beyond your yards: only an admin without a yard scope may use them.`,
    );
  }
}
