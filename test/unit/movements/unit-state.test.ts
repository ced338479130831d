import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../shared/auth/principal.js';
import { AppError } from '../../../shared/http/errors.js';
import type { MovementCreateT } from '../../../shared/modules/movements/schema.js';
import { checkUnitState, unitLabel } from '../../../shared/modules/movements/unit-state.js';

/**
 * What a check-in or check-out decides from where the unit is now (movements/unit-state.ts): the
 * unit's yard against the movement's yard, `force`, and which yards the caller may see.
 */
const HERE = 'yard-here';
const ELSEWHERE = 'yard-elsewhere';
const HIDDEN = 'yard-hidden';

const everyYard: Principal = { kind: 'user', id: 'u1', name: 'admin', role: 'admin', yardIds: null };
const scoped: Principal = { kind: 'user', id: 'u2', name: 'clerk', role: 'gate', yardIds: [HERE, ELSEWHERE] };

function movement(direction: 'in' | 'out', extra: Partial<MovementCreateT> = {}): MovementCreateT {
  return { yardId: HERE, direction, trailer: { number: 'TR-1' }, ...extra };
}

const trailerIn = (yardId: string | null) => ({ id: 'trailer-1', yardId });

/** Runs the check; returns the warnings, or the refusal it threw. */
function decide(
  row: { id: string; yardId: string | null } | undefined,
  input: MovementCreateT,
  principal: Principal = everyYard,
): { warnings: string[] } | { refused: AppError } {
  const warnings: string[] = [];
  try {
    checkUnitState('trailer', row, input, principal, warnings);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return { refused: err as AppError };
  }
  return { warnings };
}

function refused(outcome: ReturnType<typeof decide>): AppError {
  if (!('refused' in outcome)) throw new Error(`expected a refusal, got warnings ${outcome.warnings}`);
  return outcome.refused;
}

describe('check-in', () => {
  it('a unit in no yard (or a new one) checks in without a warning', () => {
    expect(decide(trailerIn(null), movement('in'))).toEqual({ warnings: [] });
    expect(decide(undefined, movement('in'))).toEqual({ warnings: [] });
    expect(decide(undefined, movement('in'), scoped)).toEqual({ warnings: [] });
  });

  for (const yardId of [HERE, ELSEWHERE]) {
    it(`a unit already in ${yardId === HERE ? 'this' : 'another'} yard is 409 already-in-yard naming it`, () => {
      const err = refused(decide(trailerIn(yardId), movement('in')));
      expect(err.status).toBe(409);
      expect(err.code).toBe('already-in-yard');
      expect(err.extra).toEqual({ unit: 'trailer', yardId });
      // In a clerk's words: the yard named by words, its id only in `yardId`.
      expect(err.detail).toBe(
        yardId === HERE
          ? 'Trailer TR-1 is already in this yard (checked in, not checked out). Check it out first, or record the check-in anyway.'
          : 'Trailer TR-1 is already in another yard. Check it out first, or record the check-in anyway.',
      );
    });
  }

  it('force records it with an already-in-yard warning (the movement then ends the earlier stay)', () => {
    expect(decide(trailerIn(ELSEWHERE), movement('in', { force: true }))).toEqual({
      warnings: ['already-in-yard: Trailer TR-1 is already in another yard.'],
    });
  });

  it('a yard outside the caller’s scope is never named; force still records (the unit is at this gate)', () => {
    const err = refused(decide(trailerIn(HIDDEN), movement('in'), scoped));
    expect(err.code).toBe('already-in-yard');
    expect(err.extra).toEqual({ unit: 'trailer' });
    expect(err.detail).not.toContain(HIDDEN);
    expect(err.detail).toContain('already in another yard');
    const forced = decide(trailerIn(HIDDEN), movement('in', { force: true }), scoped);
    expect(forced).toEqual({ warnings: ['already-in-yard: Trailer TR-1 is already in another yard.'] });
  });
});

describe('check-out', () => {
  it('a unit in this yard checks out without a warning', () => {
    expect(decide(trailerIn(HERE), movement('out'))).toEqual({ warnings: [] });
    expect(decide(trailerIn(HERE), movement('out'), scoped)).toEqual({ warnings: [] });
  });

  for (const [what, row] of [
    ['in another yard', trailerIn(ELSEWHERE)],
    ['in no yard', trailerIn(null)],
    ['unknown (new)', undefined],
  ] as const) {
    it(`a unit ${what} is 409 not-in-yard; force records it with a warning`, () => {
      const err = refused(decide(row, movement('out')));
      expect(err.status).toBe(409);
      expect(err.code).toBe('not-in-yard');
      expect(err.extra).toEqual({ unit: 'trailer', yardId: row?.yardId ?? null });
      expect(decide(row, movement('out', { force: true }))).toEqual({
        warnings: ['not-in-yard: Trailer TR-1 is not in this yard.'],
      });
    });
  }

  it('a unit in a yard outside the caller’s scope cannot be checked out, even with force; the yard is not named', () => {
    for (const force of [false, true]) {
      const err = refused(decide(trailerIn(HIDDEN), movement('out', { force }), scoped));
      expect(err.status).toBe(409);
      expect(err.code).toBe('not-in-yard');
      expect(err.extra).toEqual({ unit: 'trailer' });
      expect(err.detail).not.toContain(HIDDEN);
      expect(err.detail).toContain('force does not apply');
    }
    // The same unit, for a caller who sees every yard: the ordinary not-in-yard, which force overrides.
    expect(decide(trailerIn(HIDDEN), movement('out', { force: true }))).toEqual({
      warnings: ['not-in-yard: Trailer TR-1 is not in this yard.'],
    });
  });
});

describe('unit labels in messages', () => {
  it('name the trailer by the number sent and the truck by the plate sent, else by id', () => {
    const input = movement('in', { trailer: { number: 'TR-9' }, truck: { plate: 'ABC 123' } });
    expect(unitLabel('trailer', { id: 't1' }, input)).toBe('Trailer TR-9');
    expect(unitLabel('truck', { id: 'k1' }, input)).toBe('Truck ABC 123');
    const byId = movement('in', { trailer: { id: 't1' }, truck: { id: 'k1' } });
    expect(unitLabel('trailer', { id: 't1' }, byId)).toBe('Trailer t1');
    expect(unitLabel('truck', { id: 'k1' }, byId)).toBe('Truck k1');
  });

  it('a truck is checked by the same rules, named by its plate', () => {
    const warnings: string[] = [];
    const input = movement('out', { trailer: undefined, truck: { plate: 'ABC 123' }, force: true });
    checkUnitState('truck', { id: 'k1', yardId: ELSEWHERE }, input, everyYard, warnings);
    expect(warnings).toEqual(['not-in-yard: Truck ABC 123 is not in this yard.']);
  });
});
