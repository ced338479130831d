import type { Schemas } from '../../common/api/client';
import type {
  AppointmentPick,
  CarrierPick,
  CheckInValues,
  DriverPick,
  TrailerPick,
  TruckPick,
} from './model';

/**
 * A matched check-in (docs/domain.md "At the gate"): the booking fills carrier, trailer, truck,
 * driver and load, and its door is suggested. Pure, so the rule is unit-tested
 * (test/unit/ui/check-in-appointment.test.ts); the lookups that find the known units are the
 * field's (appointment-field.tsx).
 */

/** A code as scanners and people type it: case, spaces and dashes do not matter ("ab3k-7mqp"). */
export function normalCode(typed: string): string {
  return typed.replace(/[\s-]/g, '').toUpperCase();
}

/**
 * Whether what was typed can be an appointment code: 8 of the code's letters and digits (no 0/O,
 * 1/I/L; docs/domain.md "Appointments"). Anything else is looked for as a ref or trailer number.
 */
export function looksLikeCode(typed: string): boolean {
  return /^[A-HJKMNP-Z2-9]{8}$/.test(normalCode(typed));
}

/**
 * Several of today's appointments share the ref or trailer number: when the form already names a
 * carrier that some of them are booked for, those are offered (carrier + trailer number); else all.
 */
export function preferCarrier<T extends { carrierId: string }>(
  matches: T[],
  carrierId: string | undefined,
): T[] {
  const theirs = carrierId ? matches.filter((m) => m.carrierId === carrierId) : [];
  return theirs.length > 0 ? theirs : matches;
}

export function appointmentPick(a: Schemas['Appointment'], doorFree: boolean): AppointmentPick {
  return {
    id: a.id,
    code: a.code,
    startAt: a.startAt,
    doorId: a.doorId,
    doorName: a.doorName,
    loadTypeName: a.loadTypeName,
    carrierName: a.carrierName,
    status: a.status,
    arrivedAt: a.arrivedAt,
    doorFree,
  };
}

/** The known units the booking's numbers name (found by the field's lookups), each or null. */
export interface Known {
  carrier: CarrierPick | null;
  trailer: TrailerPick | null;
  truck: TruckPick | null;
  driver: DriverPick | null;
  /** The load type's direction: inbound trailers arrive loaded, outbound ones empty to be loaded. */
  direction: string | null;
  /** Whether the appointment's door has room now (a door taken by another trailer is not suggested). */
  doorFree: boolean;
}

/**
 * The form after the match: every booked value replaces what was there (the code comes first, so
 * the form is fresh); a value the booking lacks leaves the field as the clerk had it.
 */
export function fillFromAppointment(
  v: CheckInValues,
  a: Schemas['Appointment'],
  known: Known,
): Partial<CheckInValues> {
  const patch: Partial<CheckInValues> = {
    code: a.code,
    appointment: appointmentPick(a, known.doorFree),
  };
  patch.carrierText = known.carrier
    ? known.carrier.scac
      ? `${known.carrier.name} (${known.carrier.scac})`
      : known.carrier.name
    : a.carrierName;
  patch.carrier = known.carrier;
  if (a.trailerNumber) {
    patch.trailerText = known.trailer?.number ?? a.trailerNumber;
    patch.trailer = known.trailer;
  }
  if (a.truckPlate) {
    patch.truckText = known.truck?.plate ?? a.truckPlate;
    patch.truck = known.truck;
  }
  if (a.driverName || known.driver) {
    patch.driverText = known.driver?.name ?? a.driverName ?? '';
    patch.driver = known.driver;
    patch.overrideReason = '';
  }
  if (known.direction === 'inbound') patch.loadStatus = 'loaded';
  else if (known.direction === 'outbound') patch.loadStatus = 'empty';
  if (known.doorFree) patch.locationId = a.doorId;
  else if (v.locationId === a.doorId) patch.locationId = '';
  return patch;
}

/** What the form says under the code once matched: who, when, where, and the booking's state. */
export function matchSummary(a: AppointmentPick, time: (iso: string) => string): string {
  const base = `${a.carrierName}, ${a.loadTypeName} at ${time(a.startAt)}, ${a.doorName}.`;
  if (a.status === 'arrived' || a.status === 'docked')
    return `${base} Already checked in${a.arrivedAt ? ` at ${time(a.arrivedAt)}` : ''}.`;
  if (a.status === 'no_show') return `${base} Marked a no-show: checking in records it as arrived late.`;
  return base;
}
