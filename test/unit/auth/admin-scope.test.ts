import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../shared/auth/principal.js';
import { assertMayGrant, type ExistingYards } from '../../../shared/modules/auth/admin-scope.js';

/**
 * The admin scope rule takes what it uses: which yards exist comes from the yards module
 * (YardService.existingYardIds), handed in, so the rule runs without a database.
 */
function admin(yardIds: string[] | null): Principal {
  return { kind: 'user', id: 'u1', name: 'admin', role: 'admin', yardIds };
}

function yardsThatExist(...ids: string[]): ExistingYards & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    existingYardIds: async (yardIds) => {
      asked.push(yardIds);
      return yardIds.filter((id) => ids.includes(id));
    },
  };
}

describe('assertMayGrant: the scope an admin may give', () => {
  it('an unscoped admin grants existing yards; each unknown yard is a 400 on its field', async () => {
    const yards = yardsThatExist('A', 'B');
    await expect(assertMayGrant(yards, admin(null), ['A', 'B'], 'body.yardIds')).resolves.toBeUndefined();
    await expect(assertMayGrant(yards, admin(null), ['A', 'X'], 'body.yardIds')).rejects.toMatchObject({
      status: 400,
      code: 'validation-failed',
      errors: [{ path: 'body.yardIds.1', code: 'unknown-yard' }],
    });
    expect(yards.asked).toEqual([
      ['A', 'B'],
      ['A', 'X'],
    ]);
  });

  it('a scoped admin cannot grant beyond its yards (403) and the yards module is not asked', async () => {
    const yards = yardsThatExist('A', 'B');
    await expect(assertMayGrant(yards, admin(['A']), ['A', 'B'], 'body.yardIds')).rejects.toMatchObject({
      status: 403,
    });
    await expect(assertMayGrant(yards, admin(['A']), null, 'body.yardIds')).rejects.toMatchObject({
      status: 403,
    });
    expect(yards.asked).toEqual([]);
  });

  it('every yard (null) needs no lookup', async () => {
    const yards = yardsThatExist();
    await expect(assertMayGrant(yards, admin(null), null, 'body.yardIds')).resolves.toBeUndefined();
    expect(yards.asked).toEqual([]);
  });
});
