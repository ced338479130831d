import type { AppointmentPublicT } from '../../../shared/modules/appointments/public-view.js';

/**
 * A pass on Sunday 2026-03-08, the day Chicago springs forward: 01:30 CST to 03:30 CDT (one hour).
 * Names with characters outside WinAnsi and HTML's special characters, as people type them.
 */
export function passOf(over: Partial<AppointmentPublicT> = {}): AppointmentPublicT {
  return {
    id: '0194f0c2-7d1e-7a55-9c1e-3f1b2a4c5d6e',
    code: 'K7M2Q9TX',
    yard: { id: 'y1', name: 'Łódź North <DC>', timeZone: 'America/Chicago' },
    doorName: 'Door 4',
    loadTypeName: 'Live unload',
    startAt: '2026-03-08T01:30:00-06:00',
    endAt: '2026-03-08T03:30:00-05:00',
    carrier: { id: 'c1', name: 'Acme & Sons Freight' },
    refs: ['PO-1', 'BOL-7'],
    trailerNumber: 'TR-9',
    truckPlate: 'IL 123',
    driverName: 'Sam Driver',
    status: 'scheduled',
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
  };
}
