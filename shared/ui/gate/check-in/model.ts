import type { Schemas } from '../../common/api/client';
import { fromDraft, toDraft } from '../../common/form-state';

/** What the clerk picked from a type-ahead (kept small: it goes into the sessionStorage draft). */
export interface TrailerPick {
  id: string;
  number: string;
  carrierId: string | null;
  inYard: boolean;
}
export interface TruckPick {
  id: string;
  plate: string;
  carrierId: string | null;
  inYard: boolean;
}
export interface CarrierPick {
  id: string;
  name: string;
  scac: string | null;
  status: string;
}
export interface DriverPick {
  id: string;
  name: string;
  carrierId: string | null;
  phone: string | null;
  licenseNumber: string | null;
}

/** What the draft keeps of the matched appointment (small: it goes into sessionStorage). */
export interface AppointmentPick {
  id: string;
  code: string;
  startAt: string;
  doorId: string;
  doorName: string;
  loadTypeName: string;
  carrierName: string;
  status: string;
  arrivedAt: string | null;
  /** The door had room when the code matched: it is offered on the spot field and suggested. */
  doorFree: boolean;
}

export type LoadStatus = Schemas['MovementCreate']['loadStatus'] & string;

/** The check-in form: what is typed beside what was picked (a typed unknown unit is a new one). */
export const EMPTY = {
  /** The appointment code as typed or scanned; `appointment` once it matched (a walk-in has none). */
  code: '',
  appointment: null as AppointmentPick | null,
  trailerText: '',
  trailer: null as TrailerPick | null,
  truckText: '',
  truck: null as TruckPick | null,
  carrierText: '',
  carrier: null as CarrierPick | null,
  driverText: '',
  driver: null as DriverPick | null,
  loadStatus: 'loaded' as LoadStatus,
  sealNumber: '',
  locationId: '',
  overrideReason: '',
};
export type CheckInValues = typeof EMPTY;

/** Where the server's field errors (errors[].path without "body.") land on the form. */
export const ALIASES: Record<string, keyof CheckInValues> = {
  appointmentId: 'code',
  trailer: 'trailerText',
  truck: 'truckText',
  carrierId: 'carrierText',
  driverId: 'driverText',
  override: 'overrideReason',
  sealNumber: 'sealNumber',
  locationId: 'locationId',
  loadStatus: 'loadStatus',
};

export function driverPick(d: Schemas['Driver']): DriverPick {
  return {
    id: d.id,
    name: `${d.firstName} ${d.lastName}`,
    carrierId: d.carrierId,
    phone: d.phone,
    licenseNumber: d.licenseNumber,
  };
}

/** The movement to record: picked units by id, typed unknown ones by number / plate (the server creates them). */
export function movementBody(
  v: CheckInValues,
  ctx: {
    yardId: string;
    gateId: string | null;
    overrideNeeded: boolean;
    force: boolean;
    /** The clerk confirmed a new trailer whose number the server doubted (new-unit.tsx). */
    confirmNew?: boolean;
  },
): Schemas['MovementCreate'] {
  const carrierId = v.carrier?.id;
  const trailerNumber = v.trailerText.trim();
  const plate = v.truckText.trim();
  const seal = v.sealNumber.trim();
  return {
    yardId: ctx.yardId,
    direction: 'in',
    ...(v.appointment ? { appointmentId: v.appointment.id } : {}),
    ...(ctx.gateId ? { gateId: ctx.gateId, actuate: true, snapshot: true } : {}),
    ...(v.trailer
      ? { trailer: { id: v.trailer.id } }
      : trailerNumber
        ? {
            trailer: {
              number: trailerNumber,
              ...(carrierId ? { carrierId } : {}),
              ...(ctx.confirmNew ? { confirmNew: true } : {}),
            },
          }
        : {}),
    ...(v.truck
      ? { truck: { id: v.truck.id } }
      : plate
        ? { truck: { plate, ...(carrierId ? { carrierId } : {}) } }
        : {}),
    ...(v.driver ? { driverId: v.driver.id } : {}),
    ...(carrierId ? { carrierId } : {}),
    ...(v.locationId ? { locationId: v.locationId } : {}),
    loadStatus: v.loadStatus,
    ...(seal ? { sealNumber: seal } : {}),
    ...(ctx.overrideNeeded ? { override: { reason: v.overrideReason.trim() } } : {}),
    ...(ctx.force ? { force: true } : {}),
  };
}

/** The draft of the desk's half-typed check-in: survives a reload and a trip to driver registration. */
const DRAFT_KEY = 'yard.gate.checkIn.draft';

export function loadDraft() {
  return fromDraft(EMPTY, sessionStorage.getItem(DRAFT_KEY));
}

export function saveDraft(s: ReturnType<typeof loadDraft>): void {
  const draft = toDraft(s);
  if (draft) sessionStorage.setItem(DRAFT_KEY, draft);
  else sessionStorage.removeItem(DRAFT_KEY);
}

/** A driver registered elsewhere (the Drivers screen) goes into the check-in draft. */
export function putDriverInDraft(d: Schemas['Driver']): void {
  const s = loadDraft();
  sessionStorage.setItem(
    DRAFT_KEY,
    JSON.stringify({ ...s.values, driver: driverPick(d), driverText: `${d.firstName} ${d.lastName}` }),
  );
}
