import {
  AppointmentCancel,
  AppointmentCreate,
  AppointmentPatch,
  LoadTypeCreate,
  LoadTypePatch,
  SchedulingConfigPut,
} from './schema.js';

/**
 * Request bodies as the booking routes document them (routes.ts): the shapes of schema.ts, with the
 * description and a working example each (test/integration/platform/openapi-contract.test.ts).
 */

const EXAMPLE_YARD = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f';
const EXAMPLE_DOOR = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e60';
const EXAMPLE_LOAD_TYPE = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e61';
const EXAMPLE_CARRIER = '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e62';

export const SchedulingConfigPutBody = SchedulingConfigPut.openapi({
  description: "A yard's scheduling config, whole; the numbers left out take their defaults.",
  example: {
    enabled: true,
    openHours: { '1': [{ from: '06:00', to: '18:00' }], '2': [{ from: '06:00', to: '18:00' }] },
    closedDates: ['2026-12-25'],
    slotMinutes: 15,
    leadTimeMinMinutes: 120,
    leadTimeMaxDays: 30,
    changeCutoffMinutes: 240,
    lateGraceMinutes: 15,
    noShowAfterMinutes: 60,
    freeTimeMinutes: 120,
  },
});

export const LoadTypeCreateBody = LoadTypeCreate.openapi({
  description:
    'A load type of a yard: how long a booking of it takes and which doors it may use (none listed: every door).',
  example: { yardId: EXAMPLE_YARD, name: 'Live unload', durationMinutes: 60, doorIds: [EXAMPLE_DOOR] },
});

export const LoadTypePatchBody = LoadTypePatch.openapi({
  description: 'The fields of a load type to change.',
  example: { durationMinutes: 90, carrierVisible: false },
});

export const AppointmentCreateBody = AppointmentCreate.openapi({
  description:
    'A booking: a free start time of the load type (GET /api/appointment/availability), optionally a door; `override` (admins and dispatchers) books outside the rules, never over capacity.',
  example: {
    yardId: EXAMPLE_YARD,
    loadTypeId: EXAMPLE_LOAD_TYPE,
    startAt: '2026-03-03T08:00:00-06:00',
    carrierId: EXAMPLE_CARRIER,
    refs: ['PO-4711'],
    trailerNumber: 'TRL-2231',
  },
});

export const AppointmentPatchBody = AppointmentPatch.openapi({
  description: 'A new start, door or load type (the booking rules apply again), or other fields to change.',
  example: { startAt: '2026-03-03T09:30:00-06:00' },
});

export const AppointmentCancelBody = AppointmentCancel.openapi({
  description: 'Why the appointment is cancelled (kept in its history).',
  example: { reason: 'Load not ready' },
});
