import type { Appointment } from '../../../shared/ui/gate/appointments/expected-rows';

/** An appointment as GET /api/appointment answers it, starting at `start` (UTC "HH:MM" on 2026-03-02). */
export function appt(id: string, start: string, patch: Partial<Appointment> = {}): Appointment {
  const startAt = `2026-03-02T${start}:00.000Z`;
  return {
    id,
    yardId: 'y1',
    doorId: 'd3',
    doorName: 'Door 3',
    loadTypeId: 'lt1',
    loadTypeName: 'Live unload',
    startAt,
    endAt: new Date(Date.parse(startAt) + 3_600_000).toISOString(),
    carrierId: 'c1',
    carrierName: 'Lone Star Logistics',
    refs: [],
    trailerNumber: 'LSLG5310',
    truckPlate: 'TX 4410',
    driverName: 'Dale Brooks',
    driverPhone: null,
    notes: null,
    code: `CODE${id.toUpperCase()}`,
    status: 'scheduled',
    arrival: null,
    overdue: false,
    movementId: null,
    overrideReason: null,
    createdBy: null,
    cancelledAt: null,
    cancelReason: null,
    arrivedAt: null,
    dockedAt: null,
    completedAt: null,
    departedAt: null,
    noShowAt: null,
    changeUntil: null,
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
    version: 1,
    ...patch,
  };
}
