import { describe, expect, it } from 'vitest';
import { entityByName } from '../../../shared/sync/entities.js';
import { CLOUD_ONLY_FIELDS, deleteRefusal, sharedWriteRefusal } from '../../../shared/sync/site-rules.js';

/** docs/sync.md "Trust": what a site may do to a shared record (site-rules.ts). */
describe('what a site may write to shared records', () => {
  const driver = entityByName('driver')!;
  const trailer = entityByName('trailer')!;
  const own = (yardId: unknown) => yardId === 'y-own';
  const cleanDriver = {
    id: 'd1',
    firstName: 'Jo',
    pinHash: null,
    driverCode: null,
    status: 'active',
    blockedReason: null,
  };

  it('the cloud-only fields are the driver’s PIN, code, status and block', () => {
    expect(CLOUD_ONLY_FIELDS).toEqual({ driver: ['pinHash', 'driverCode', 'status', 'blockedReason'] });
  });

  it('a new driver only with the cloud-only fields at their defaults (or left out)', () => {
    expect(sharedWriteRefusal(driver, cleanDriver, { op: 'insert' }, own)).toBeUndefined();
    expect(sharedWriteRefusal(driver, { id: 'd1', firstName: 'Jo' }, { op: 'insert' }, own)).toBeUndefined();
    for (const [field, value] of [
      ['driverCode', 'PLANT'],
      ['pinHash', 'scrypt$x'],
      ['status', 'blocked'],
      ['blockedReason', 'x'],
    ] as const) {
      expect(sharedWriteRefusal(driver, { ...cleanDriver, [field]: value }, { op: 'insert' }, own)).toBe(
        `a site may not set ${field} of a driver`,
      );
    }
    expect(
      sharedWriteRefusal(driver, { ...cleanDriver, driverCode: 'A', pinHash: 'p' }, { op: 'insert' }, own),
    ).toBe('a site may not set pinHash, driverCode of a driver');
    // Other shared records have no cloud-only fields.
    expect(sharedWriteRefusal(trailer, { id: 't', driverCode: 'x' }, { op: 'insert' }, own)).toBeUndefined();
  });

  it('an update may not change a cloud-only field; other fields may change', () => {
    expect(
      sharedWriteRefusal(driver, cleanDriver, { op: 'update', fields: ['phone', 'lastName'] }, own),
    ).toBeUndefined();
    expect(sharedWriteRefusal(driver, cleanDriver, { op: 'update', fields: ['phone', 'status'] }, own)).toBe(
      'a site may not change status of a driver',
    );
    expect(
      sharedWriteRefusal(trailer, { id: 't' }, { op: 'update', fields: ['status'] }, own),
    ).toBeUndefined();
  });

  it('deletes: never a driver; a trailer only while in one of the site’s yards', () => {
    expect(sharedWriteRefusal(driver, cleanDriver, { op: 'delete' }, () => true)).toBe(
      'a site may not delete a driver (drivers are organisation-wide)',
    );
    expect(deleteRefusal(trailer, { yardId: 'y-own' }, own)).toBeUndefined();
    expect(sharedWriteRefusal(trailer, { yardId: 'y-own' }, { op: 'delete' }, own)).toBeUndefined();
    expect(deleteRefusal(trailer, { yardId: 'y-other' }, own)).toBe(
      'a site may delete a trailer only while it is in one of its yards',
    );
    expect(deleteRefusal(trailer, { yardId: null }, own)).toMatch(/only while it is in one of its yards/);
  });
});
