import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/http/errors.js';
import { normalPlate, preferByYard } from '../../../shared/modules/movements/record.js';
import type { MovementCreateT } from '../../../shared/modules/movements/schema.js';
import { assertNotInFuture } from '../../../shared/modules/movements/validate.js';

/** The pure decisions of movements/record.ts: which unit a number means, plates, the date. */
const HERE = 'yard-here';
const move = (direction: 'in' | 'out'): MovementCreateT => ({
  yardId: HERE,
  direction,
  trailer: { number: 'TR-1' },
});

describe('which of several units with the same number a movement means', () => {
  const inThisYard = { id: 'a', yardId: HERE };
  const inNoYard = { id: 'b', yardId: null };
  const elsewhere = { id: 'c', yardId: 'yard-elsewhere' };

  it('a check-out means the one in this yard', () => {
    expect(preferByYard([elsewhere, inNoYard, inThisYard], move('out'))).toBe(inThisYard);
  });

  it('a check-in means the one in no yard', () => {
    expect(preferByYard([elsewhere, inThisYard, inNoYard], move('in'))).toBe(inNoYard);
  });

  it('with none of those, the first found (then the unit-state check decides); none at all is a new unit', () => {
    expect(preferByYard([elsewhere, inNoYard], move('out'))).toBe(elsewhere);
    expect(preferByYard([elsewhere, inThisYard], move('in'))).toBe(elsewhere);
    expect(preferByYard([], move('in'))).toBeUndefined();
  });
});

describe('plates', () => {
  it('are stored and matched in upper case without surrounding spaces', () => {
    expect(normalPlate('  ab 123-cd ')).toBe('AB 123-CD');
    expect(normalPlate('ABC123')).toBe('ABC123');
  });
});

describe('the movement’s date', () => {
  const now = Date.parse('2026-03-02T08:00:00Z');

  it('may be up to 5 minutes ahead of the clock, not more', () => {
    expect(() => assertNotInFuture(now, now)).not.toThrow();
    expect(() => assertNotInFuture(now - 86_400_000, now)).not.toThrow();
    expect(() => assertNotInFuture(now + 5 * 60_000, now)).not.toThrow();
    let err: unknown;
    try {
      assertNotInFuture(now + 5 * 60_000 + 1, now);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
    expect((err as AppError).code).toBe('validation-failed');
    expect((err as AppError).errors?.[0]?.path).toBe('body.at');
  });
});
