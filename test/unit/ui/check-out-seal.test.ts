import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../../shared/ui/common/api/client';
import { checkOutBody, matchUnits, type YardUnit } from '../../../shared/ui/gate/check-out/form';
import { checkSeal, normalizeSeal } from '../../../shared/ui/gate/check-out/seal';

describe('seal verification', () => {
  it('ignores case, spaces and dashes', () => {
    expect(normalizeSeal(' sl 998-12 ')).toBe('SL99812');
    expect(checkSeal('SL-99812', 'sl 99812')).toBe('match');
  });

  it('tells a mismatch, a missing seal, a new seal and nothing to check apart', () => {
    expect(checkSeal('SL-99812', 'SL-99813')).toBe('mismatch');
    expect(checkSeal('SL-99812', '  ')).toBe('missing');
    expect(checkSeal(null, 'SL-1')).toBe('new');
    expect(checkSeal(null, '')).toBe('none');
  });
});

const trailerUnit = (number: string, sealNumber: string | null): YardUnit => ({
  kind: 'trailer',
  id: `id-${number}`,
  label: number,
  detail: '',
  trailer: { id: `id-${number}`, number, sealNumber } as Schemas['Trailer'],
});
const form = { yardId: 'y', gateId: 'g', truckPlate: '', acknowledged: false, notes: '' };

describe('the check-out movement', () => {
  it('is not built while a seal difference is not acknowledged', () => {
    const unit = trailerUnit('LSLG5300', 'SL-1');
    expect(checkOutBody({ ...form, unit, seal: 'SL-2' })).toEqual({ blocked: 'seal' });
    expect(checkOutBody({ ...form, unit, seal: '' })).toEqual({ blocked: 'seal' });
  });

  it('records an acknowledged mismatch in the notes, with the seal seen', () => {
    const unit = trailerUnit('LSLG5300', 'SL-1');
    const out = checkOutBody({
      ...form,
      unit,
      seal: 'SL-2 ',
      acknowledged: true,
      notes: 'driver says resealed',
    });
    expect(out).toEqual({
      body: {
        yardId: 'y',
        gateId: 'g',
        direction: 'out',
        trailer: { id: 'id-LSLG5300' },
        sealNumber: 'SL-2',
        notes: 'Seal mismatch acknowledged: recorded SL-1, on the unit SL-2. driver says resealed',
        actuate: true,
        snapshot: true,
      },
    });
  });

  it('a matching seal needs no acknowledgement; a truck plate goes with the trailer', () => {
    const unit = trailerUnit('LSLG5300', 'SL-1');
    const out = checkOutBody({ ...form, unit, seal: 'sl1', truckPlate: ' TX8100 ' });
    expect(out).toMatchObject({
      body: { trailer: { id: 'id-LSLG5300' }, truck: { plate: 'TX8100' }, sealNumber: 'SL-1' },
    });
    expect('body' in out ? out.body.notes : 'blocked').toBeUndefined();
  });

  it('a truck alone leaves without a seal check', () => {
    const unit: YardUnit = {
      kind: 'truck',
      id: 'k',
      label: 'TX8100',
      detail: '',
      truck: {} as Schemas['Truck'],
    };
    expect(checkOutBody({ ...form, unit, seal: '' })).toMatchObject({ body: { truck: { id: 'k' } } });
  });
});

describe('unit type-ahead', () => {
  it('exact, then prefix, then anywhere; spaces and case ignored', () => {
    const units = ['PRHL5301', 'LSLG5300', 'LSLG 53', 'GCCA5302'].map((n) => trailerUnit(n, null));
    expect(matchUnits(units, 'lslg53').map((u) => u.label)).toEqual(['LSLG 53', 'LSLG5300']);
    expect(matchUnits(units, '530').map((u) => u.label)).toEqual(['GCCA5302', 'LSLG5300', 'PRHL5301']);
    expect(matchUnits(units, 'zzz')).toEqual([]);
  });
});
