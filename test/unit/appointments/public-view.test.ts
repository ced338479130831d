import { describe, expect, it } from 'vitest';
import {
  type AppointmentPublicRow,
  toAppointmentPublic,
} from '../../../shared/modules/appointments/public-view.js';

const row = (over: Partial<AppointmentPublicRow> = {}): AppointmentPublicRow => ({
  id: 'a1',
  code: 'K7M2Q9TX',
  yardId: 'y1',
  yardName: 'North yard',
  timeZone: 'America/Chicago',
  doorName: 'Door 4',
  loadTypeName: 'Live unload',
  // Sunday 2026-03-08, the spring-forward day in Chicago: 01:30 CST and 03:30 CDT.
  startAt: Date.parse('2026-03-08T07:30:00Z'),
  endAt: Date.parse('2026-03-08T08:30:00Z'),
  carrierId: 'c1',
  carrierName: 'Acme Freight',
  refs: '["PO-1"]',
  trailerNumber: null,
  truckPlate: null,
  driverName: null,
  arrival: null,
  arrivedAt: null,
  dockedAt: null,
  completedAt: null,
  departedAt: null,
  noShowAt: null,
  cancelledAt: null,
  cancelReason: null,
  version: 3,
  ...over,
});

/** Times on the pass, in mails and in webhook payloads read as the yard's wall clock (public-view.ts). */
describe('toAppointmentPublic', () => {
  it('gives each instant with the offset in force at it, across a DST change', () => {
    const p = toAppointmentPublic(row({ arrivedAt: Date.parse('2026-03-08T08:05:00Z') }));
    expect(p.startAt).toBe('2026-03-08T01:30:00-06:00');
    expect(p.endAt).toBe('2026-03-08T03:30:00-05:00');
    expect(p.arrivedAt).toBe('2026-03-08T03:05:00-05:00');
    expect(p.dockedAt).toBeNull();
  });

  it('derives the status from the times (status.ts), an arrival after a no-show outranking it', () => {
    expect(toAppointmentPublic(row()).status).toBe('scheduled');
    expect(toAppointmentPublic(row({ noShowAt: 1 })).status).toBe('no_show');
    expect(toAppointmentPublic(row({ noShowAt: 1, arrivedAt: 2, arrival: 'late' })).status).toBe('arrived');
    expect(toAppointmentPublic(row({ cancelledAt: 1, cancelReason: 'x' })).status).toBe('cancelled');
  });

  it('nests yard and carrier and parses the refs', () => {
    expect(toAppointmentPublic(row())).toMatchObject({
      yard: { id: 'y1', name: 'North yard', timeZone: 'America/Chicago' },
      carrier: { id: 'c1', name: 'Acme Freight' },
      refs: ['PO-1'],
      version: 3,
    });
  });
});
