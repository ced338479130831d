import { describe, expect, it } from 'vitest';
import {
  errorOf,
  fromDraft,
  initForm,
  isDirty,
  setField,
  setFields,
  toDraft,
  withServerErrors,
} from '../../../shared/ui/common/form-state';

const empty = { trailer: '', seal: '', driver: null as { id: string } | null, loadStatus: 'loaded' };

describe('form state', () => {
  it('is clean until a value differs from the empty form', () => {
    let s = initForm(empty);
    expect(isDirty(s)).toBe(false);
    s = setField(s, 'trailer', 'LSLG5300');
    expect(isDirty(s)).toBe(true);
    expect(s.touched).toEqual({ trailer: true });
    s = setField(s, 'trailer', '');
    expect(isDirty(s)).toBe(false);
    expect(isDirty(setFields(s, { driver: { id: 'd1' } }))).toBe(true);
  });

  it('places server errors on their fields by path, alias or prefix, and returns the rest', () => {
    const s = initForm(empty);
    const { state, unplaced } = withServerErrors(
      s,
      {
        'trailer.number': 'must be at most 40 characters',
        sealNumber: 'too long',
        driverId: 'not a driver',
        gateId: 'actuate needs a gateId',
        _: 'The yard is closed',
      },
      { trailer: 'trailer', sealNumber: 'seal', driverId: 'driver' },
    );
    expect(errorOf(state, 'trailer')).toBe('must be at most 40 characters');
    expect(errorOf(state, 'seal')).toBe('too long');
    expect(errorOf(state, 'driver')).toBe('not a driver');
    expect(unplaced).toEqual(['Gate: actuate needs a gateId', 'The yard is closed']);
  });

  it('clears a field error as soon as the field is edited, keeping the others', () => {
    const s = withServerErrors(initForm(empty), { seal: 'too long', trailer: 'unknown' }).state;
    const edited = setField(s, 'seal', 'SL-1');
    expect(errorOf(edited, 'seal')).toBeUndefined();
    expect(errorOf(edited, 'trailer')).toBe('unknown');
  });

  it('keeps a draft only when dirty, and reads back only fields of the right type', () => {
    expect(toDraft(initForm(empty))).toBeNull();
    const s = setFields(initForm(empty), { trailer: 'PRFU 482113', driver: { id: 'd1' } });
    const back = fromDraft(empty, toDraft(s));
    expect(back.values).toEqual({ ...empty, trailer: 'PRFU 482113', driver: { id: 'd1' } });
    expect(isDirty(back)).toBe(true);
    const odd = fromDraft(
      empty,
      JSON.stringify({ trailer: 42, seal: 'S1', extra: 'x', loadStatus: 'empty' }),
    );
    expect(odd.values).toEqual({ ...empty, seal: 'S1', loadStatus: 'empty' });
    expect(fromDraft(empty, '{not json').values).toEqual(empty);
    expect(fromDraft(empty, null).values).toEqual(empty);
  });
});
