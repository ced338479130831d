import { CARRIER, STAFF } from '../../auth/principal.js';
import { Id, IdParams, PageQuery, page } from '../../http/common-schemas.js';
import { etagOf, type RouteRegistrar } from '../../http/routes.js';
import { z } from '../../http/zod.js';
import type { AppointmentBooking } from './booking.js';
import type { SchedulingConfigService } from './config-service.js';
import type { LoadTypeService } from './load-type-service.js';
import {
  AppointmentCancelBody,
  AppointmentCreateBody,
  AppointmentPatchBody,
  LoadTypeCreateBody,
  LoadTypePatchBody,
  SchedulingConfigPutBody,
} from './request-bodies.js';
import {
  AppointmentListQuery,
  AppointmentOut,
  AppointmentWithHistory,
  Availability,
  AvailabilityQuery,
  LoadTypeOut,
  SchedulingConfigOut,
} from './schema.js';
import type { AppointmentService } from './service.js';
import type { SlotService } from './slots-service.js';

const TAG = 'Appointment Controller';
const OFFICE = ['admin', 'dispatcher'] as const;
/** Staff and carrier users (their own carrier's records only: carrier-rules.ts). */
const STAFF_AND_CARRIER = [...STAFF, ...CARRIER];
const YardParams = z.object({ yardId: Id });

export interface AppointmentRouteServices {
  appointments: AppointmentService;
  appointmentBooking: AppointmentBooking;
  appointmentSlots: SlotService;
  schedulingConfigs: SchedulingConfigService;
  loadTypes: LoadTypeService;
}

/** Config, load types and booking (docs/api.md "Appointments"); the gate's and reports' routes are theirs. */
export function registerAppointmentRoutes(r: RouteRegistrar, s: AppointmentRouteServices): void {
  registerConfigRoutes(r, s);
  registerLoadTypeRoutes(r, s);

  r.add({
    method: 'get',
    path: '/api/appointment',
    tag: TAG,
    summary:
      'List appointments by start time (filters: yard, carrier, status, from/to, code, ref or trailer)',
    description: CARRIER_READS,
    access: STAFF_AND_CARRIER,
    query: AppointmentListQuery,
    response: { schema: page(AppointmentOut) },
    handler: ({ principal, query }) => s.appointments.list(principal, query),
  });

  registerBookingRoutes(r, s);

  r.add({
    method: 'get',
    path: '/api/appointment/{id}',
    tag: TAG,
    summary: 'One appointment with its status history',
    description: CARRIER_READS,
    access: STAFF_AND_CARRIER,
    params: IdParams,
    response: { schema: AppointmentWithHistory },
    errors: [404],
    handler: async ({ principal, params, res }) => {
      const appointment = await s.appointments.get(principal, params.id);
      res.setHeader('ETag', etagOf(appointment.version));
      return appointment;
    },
  });
}

const BOOKING_AT_CLOUD =
  'appointments are booked, moved and cancelled in the cloud (or a standalone edge); nothing is changed.';
const SLOT_TAKEN =
  '`slot-taken`: no allowed door is free for the whole time (the body lists `freeTimes`, the start times still free that day); `scheduling-off`: the yard takes no appointments; `invalid-transition`: the appointment cannot change any more';
const CHANGE_CUTOFF =
  '`change-cutoff` (carrier users): changes closed at startAt - the yard’s changeCutoffMinutes, or when the truck arrived; the detail says when in the yard’s wall clock and `changeUntil` gives the instant (null after arrival)';
const CARRIER_READS =
  'Carrier users see their own carrier’s appointments only (another’s is 404, a filter naming another carrier an empty page), without the override reason, who booked, the gate movement, and the actors and doors of the history.';
const CARRIER_BOOKS =
  'Carrier users book for their own carrier (carrierId left out or their own; another is 404), carrier-visible load types only (else 404), never a door or an override (400); a yard that takes no appointments is 404 to them.';

function registerBookingRoutes(r: RouteRegistrar, s: AppointmentRouteServices): void {
  r.add({
    method: 'get',
    path: '/api/appointment/availability',
    tag: TAG,
    summary:
      'Free start times of a load type on a date or from/to (yard-local dates; staff also see the free doors)',
    description:
      'Carrier users: carrier-visible load types of yards that take appointments only (else 404), the times without doors.',
    access: STAFF_AND_CARRIER,
    query: AvailabilityQuery,
    response: { schema: Availability },
    errors: [404, 409],
    errorText: { 409: '`scheduling-off`: the yard takes no appointments' },
    handler: ({ principal, query }) => s.appointmentSlots.availability(principal, query),
  });

  r.add({
    method: 'post',
    path: '/api/appointment',
    tag: TAG,
    summary:
      'Book a door: a free start time of the load type (400 not-bookable with the reason when a rule forbids it; `override: {reason}` for admins and dispatchers skips the rules but never capacity)',
    description: CARRIER_BOOKS,
    access: STAFF_AND_CARRIER,
    body: AppointmentCreateBody,
    response: { status: 201, schema: AppointmentOut },
    errors: [404, 409],
    errorText: { 409: SLOT_TAKEN },
    cloudOwnedAtLinkedEdge: BOOKING_AT_CLOUD,
    // A retry after a lost answer must not book a second door.
    idempotent: true,
    handler: async ({ principal, body, res }) => {
      const appointment = await s.appointmentBooking.book(principal, body);
      res.setHeader('ETag', etagOf(appointment.version));
      res.setHeader('Location', `/api/appointment/${appointment.id}`);
      return appointment;
    },
  });

  r.add({
    method: 'patch',
    path: '/api/appointment/{id}',
    tag: TAG,
    summary:
      'Reschedule (start, door, load type: the booking rules again) or edit an appointment; send If-Match with the ETag you read',
    description: `${CARRIER_BOOKS} They change their own carrier’s scheduled appointments until changeUntil only.`,
    access: STAFF_AND_CARRIER,
    params: IdParams,
    body: AppointmentPatchBody,
    response: { schema: AppointmentOut },
    errors: [404, 409, 412],
    errorText: { 409: `${SLOT_TAKEN}; ${CHANGE_CUTOFF}` },
    cloudOwnedAtLinkedEdge: BOOKING_AT_CLOUD,
    handler: async ({ principal, params, body, ifMatch, res }) => {
      const appointment = await s.appointmentBooking.reschedule(principal, params.id, body, ifMatch);
      res.setHeader('ETag', etagOf(appointment.version));
      return appointment;
    },
  });

  r.add({
    method: 'post',
    path: '/api/appointment/{id}/cancel',
    tag: TAG,
    summary: 'Cancel a scheduled or arrived appointment with a reason (If-Match optional)',
    access: [...OFFICE, ...CARRIER],
    params: IdParams,
    body: AppointmentCancelBody,
    response: { schema: AppointmentOut },
    errors: [404, 409, 412],
    description: 'Carrier users cancel their own carrier’s scheduled appointments until changeUntil only.',
    errorText: {
      409: `\`invalid-transition\`: only a scheduled or arrived appointment can be cancelled; ${CHANGE_CUTOFF}`,
    },
    cloudOwnedAtLinkedEdge: BOOKING_AT_CLOUD,
    handler: async ({ principal, params, body, ifMatch, res }) => {
      const appointment = await s.appointmentBooking.cancel(principal, params.id, body.reason, ifMatch);
      res.setHeader('ETag', etagOf(appointment.version));
      return appointment;
    },
  });
}

function registerConfigRoutes(r: RouteRegistrar, s: AppointmentRouteServices): void {
  r.add({
    method: 'get',
    path: '/api/appointment/config/{yardId}',
    tag: TAG,
    summary: "A yard's scheduling config (the defaults, version 0, until one is saved)",
    access: STAFF,
    params: YardParams,
    response: { schema: SchedulingConfigOut },
    errors: [404],
    yardParam: 'yardId',
    handler: async ({ principal, params, res }) => {
      const config = await s.schedulingConfigs.get(principal, params.yardId);
      res.setHeader('ETag', etagOf(config.version));
      return config;
    },
  });

  r.add({
    method: 'put',
    path: '/api/appointment/config/{yardId}',
    tag: TAG,
    summary: "Save a yard's scheduling config (If-Match with the version read; 0 before the first save)",
    access: OFFICE,
    params: YardParams,
    body: SchedulingConfigPutBody,
    response: { schema: SchedulingConfigOut },
    errors: [404, 412],
    yardParam: 'yardId',
    cloudOwnedAtLinkedEdge: 'scheduling configs are written in the cloud only (nothing is changed).',
    handler: async ({ principal, params, body, ifMatch, res }) => {
      const config = await s.schedulingConfigs.put(principal, params.yardId, body, ifMatch);
      res.setHeader('ETag', etagOf(config.version));
      return config;
    },
  });
}

function registerLoadTypeRoutes(r: RouteRegistrar, s: AppointmentRouteServices): void {
  const cloudOwned = 'load types are written in the cloud only (nothing is changed).';
  r.add({
    method: 'get',
    path: '/api/appointment/load-type',
    tag: TAG,
    summary: 'List load types (of a yard, or of every yard you see)',
    description: 'Carrier users see the carrier-visible load types of the yards in their scope only.',
    access: STAFF_AND_CARRIER,
    query: PageQuery.extend({ yardId: Id.optional() }),
    response: { schema: page(LoadTypeOut) },
    handler: ({ principal, query }) => s.loadTypes.list(principal, query),
  });

  r.add({
    method: 'post',
    path: '/api/appointment/load-type',
    tag: TAG,
    summary: 'Create a load type',
    access: OFFICE,
    body: LoadTypeCreateBody,
    response: { status: 201, schema: LoadTypeOut },
    errors: [404, 409],
    cloudOwnedAtLinkedEdge: cloudOwned,
    handler: async ({ principal, body, res }) => {
      const loadType = await s.loadTypes.create(principal, body);
      res.setHeader('ETag', etagOf(loadType.version));
      res.setHeader('Location', `/api/appointment/load-type/${loadType.id}`);
      return loadType;
    },
  });

  r.add({
    method: 'patch',
    path: '/api/appointment/load-type/{id}',
    tag: TAG,
    summary: 'Update a load type (If-Match with the ETag you read)',
    access: OFFICE,
    params: IdParams,
    body: LoadTypePatchBody,
    response: { schema: LoadTypeOut },
    errors: [404, 409, 412],
    cloudOwnedAtLinkedEdge: cloudOwned,
    handler: async ({ principal, params, body, ifMatch, res }) => {
      const loadType = await s.loadTypes.update(principal, params.id, body, ifMatch);
      res.setHeader('ETag', etagOf(loadType.version));
      return loadType;
    },
  });

  r.add({
    method: 'delete',
    path: '/api/appointment/load-type/{id}',
    tag: TAG,
    summary: 'Delete a load type no appointment names (otherwise 409 in-use)',
    access: OFFICE,
    params: IdParams,
    response: { status: 204 },
    errors: [404, 409],
    cloudOwnedAtLinkedEdge: cloudOwned,
    handler: async ({ principal, params }) => {
      await s.loadTypes.delete(principal, params.id);
    },
  });
}
