import { describe, expect, it } from 'vitest';
import { EMPTY, movementBody } from '../../../shared/ui/gate/check-in/model';

const ctx = { yardId: 'y1', gateId: 'g1', overrideNeeded: false, force: false };

describe('check-in: the movement the form sends', () => {
  it('sends picked units by id and typed unknown ones by number / plate with the carrier', () => {
    const picked = movementBody(
      {
        ...EMPTY,
        trailerText: 'LSLG5300',
        trailer: { id: 't1', number: 'LSLG5300', carrierId: 'c1', inYard: false },
        truckText: 'TX 1',
        truck: { id: 'k1', plate: 'TX1', carrierId: null, inYard: false },
        driver: { id: 'd1', name: 'Dale Brooks', carrierId: 'c1', phone: null, licenseNumber: null },
      },
      ctx,
    );
    expect(picked).toEqual({
      yardId: 'y1',
      direction: 'in',
      gateId: 'g1',
      actuate: true,
      snapshot: true,
      trailer: { id: 't1' },
      truck: { id: 'k1' },
      driverId: 'd1',
      loadStatus: 'loaded',
    });
    const typed = movementBody(
      {
        ...EMPTY,
        trailerText: ' NEWU 1 ',
        truckText: 'TX 9',
        carrier: { id: 'c2', name: 'Prairie', scac: 'PRHL', status: 'active' },
        sealNumber: '  ',
        locationId: 's5',
        loadStatus: 'empty',
      },
      { ...ctx, gateId: null },
    );
    expect(typed).toEqual({
      yardId: 'y1',
      direction: 'in',
      trailer: { number: 'NEWU 1', carrierId: 'c2' },
      truck: { plate: 'TX 9', carrierId: 'c2' },
      carrierId: 'c2',
      locationId: 's5',
      loadStatus: 'empty',
    });
  });

  it('sends the override only when the check refuses, and force only when asked', () => {
    const v = { ...EMPTY, trailerText: 'A1', overrideReason: ' paid ', sealNumber: 'SL-1' };
    expect(movementBody(v, ctx)).not.toHaveProperty('override');
    expect(movementBody(v, { ...ctx, overrideNeeded: true, force: true })).toMatchObject({
      override: { reason: 'paid' },
      force: true,
      sealNumber: 'SL-1',
    });
  });
});
