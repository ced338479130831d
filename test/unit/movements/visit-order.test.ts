import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/http/errors.js';
import { assertVisitOrder } from '../../../shared/modules/movements/visit-order.js';

/**
 * Visits are never inverted (movements/visit-order.ts): a movement that closes a visit may not be
 * dated before that visit's check-in, a check-in may not be dated before the unit's last check-out.
 * The same instant is fine. The unit's visits are given by a stub of the one query the rule reads.
 */
const T = Date.parse('2026-03-02T08:00:00Z');
const MIN = 60_000;

function visits(bounds: { openInAt: number | null; lastOutAt: number | null }) {
  return { visitBounds: async () => bounds };
}

const trailer = { kind: 'trailer', id: 'trailer-1', label: 'Trailer TR-1' } as const;
const truck = { kind: 'truck', id: 'truck-1', label: 'Truck ABC 123' } as const;

async function refusal(check: Promise<void>): Promise<AppError> {
  try {
    await check;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected the movement to be refused');
}

describe('a movement that closes the open visit (check-out, or a forced check-in)', () => {
  const open = visits({ openInAt: T, lastOutAt: null });

  it('dated before that visit’s check-in: 400 visit-inverted on body.at, naming the check-in', async () => {
    for (const direction of ['out', 'in'] as const) {
      const err = await refusal(
        assertVisitOrder(open, [trailer], { direction, at: T - 1, closesOpenVisit: true }),
      );
      expect(err.status).toBe(400);
      expect(err.code).toBe('validation-failed');
      expect(err.errors).toEqual([
        {
          path: 'body.at',
          code: 'visit-inverted',
          message: 'must not be before the check-in of the visit it closes (2026-03-02T08:00:00.000Z)',
        },
      ]);
      expect(err.detail).toContain('Trailer TR-1 was checked in at 2026-03-02T08:00:00.000Z');
    }
  });

  it('dated at the same instant or later is fine', async () => {
    await assertVisitOrder(open, [trailer], { direction: 'out', at: T, closesOpenVisit: true });
    await assertVisitOrder(open, [trailer], { direction: 'out', at: T + MIN, closesOpenVisit: true });
  });

  it('a check-in that does not close the visit is not held to its check-in time', async () => {
    await assertVisitOrder(open, [trailer], { direction: 'in', at: T - MIN, closesOpenVisit: false });
  });
});

describe('a check-in after the unit’s last check-out', () => {
  const left = visits({ openInAt: null, lastOutAt: T });

  it('dated before the last check-out: 400 visit-inverted (the visits would overlap)', async () => {
    const err = await refusal(
      assertVisitOrder(left, [truck], { direction: 'in', at: T - 1, closesOpenVisit: false }),
    );
    expect(err.errors).toEqual([
      {
        path: 'body.at',
        code: 'visit-inverted',
        message: "must not be before the unit's last check-out (2026-03-02T08:00:00.000Z)",
      },
    ]);
    expect(err.detail).toContain('Truck ABC 123 was checked out at');
  });

  it('dated at the same instant or later is fine; a check-out is not held to the last check-out', async () => {
    await assertVisitOrder(left, [truck], { direction: 'in', at: T, closesOpenVisit: false });
    await assertVisitOrder(left, [truck], { direction: 'out', at: T - MIN, closesOpenVisit: true });
  });
});

describe('several units', () => {
  it('every unit of the movement is checked: the trailer may be fine and the truck not', async () => {
    const repo = {
      visitBounds: async (unit: { kind: 'trailer' } | { kind: 'truck' }) =>
        unit.kind === 'trailer' ? { openInAt: null, lastOutAt: null } : { openInAt: null, lastOutAt: T },
    };
    const err = await refusal(
      assertVisitOrder(repo, [trailer, truck], { direction: 'in', at: T - MIN, closesOpenVisit: false }),
    );
    expect(err.detail).toContain('Truck ABC 123');
  });

  it('a unit with no visits yet takes any date', async () => {
    await assertVisitOrder(visits({ openInAt: null, lastOutAt: null }), [trailer], {
      direction: 'in',
      at: 0,
      closesOpenVisit: true,
    });
  });
});
