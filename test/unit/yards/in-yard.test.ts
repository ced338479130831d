import { describe, expect, it } from 'vitest';
import { assertNameFree, ofYard } from '../../../shared/modules/yards/in-yard.js';

/** The rules gates and locations share (shared/modules/yards/in-yard.ts). */
describe('gates and locations of a yard', () => {
  const gate = { id: 'g1', yardId: 'Y1', name: 'North' };

  it('one of another yard is not found, like one that does not exist', () => {
    expect(ofYard(gate, 'Y1', 'Gate', 'g1')).toBe(gate);
    expect(() => ofYard(gate, 'Y2', 'Gate', 'g1')).toThrow(expect.objectContaining({ status: 404 }));
    expect(() => ofYard(undefined, 'Y1', 'Location', 'l1')).toThrow(expect.objectContaining({ status: 404 }));
  });

  it('a name taken by another record of the yard is a 409 duplicate naming it; the record itself may keep it', () => {
    expect(() => assertNameFree(gate, 'gate')).toThrow(
      expect.objectContaining({
        status: 409,
        code: 'duplicate',
        detail: 'The yard already has a gate named North.',
      }),
    );
    expect(() => assertNameFree(gate, 'gate', 'g1')).not.toThrow();
    expect(() => assertNameFree(undefined, 'location')).not.toThrow();
  });
});
