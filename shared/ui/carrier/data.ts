import { computed, signal } from '@preact/signals';
import { api, call, type Schemas } from '../common/api/client';
import { session } from '../common/auth';

/** The carrier portal's reads and writes: the API's carrier routes (docs/api.md "Carrier users"). */

export type Context = Schemas['CarrierPortalContext'];
export type PortalYard = Context['yards'][number];
export type Appointment = Schemas['Appointment'];
export type LoadType = Schemas['LoadType'];
export type FreeSlot = Schemas['FreeSlot'];

/** Who is signed in, for which carrier, and the yards it may book at (loaded once per login). */
export const context = signal<Context | null>(null);

export const yardsById = computed(() => new Map((context.value?.yards ?? []).map((y) => [y.id, y] as const)));

export async function loadContext(): Promise<Context> {
  const c = await call(api.GET('/api/carrier-portal/context'));
  context.value = c;
  return c;
}

/** The yard of a record, for its name and time zone (the browser's zone while it is unknown). */
export function yardOf(yardId: string): { name: string; timeZone: string } {
  return (
    yardsById.value.get(yardId) ?? { name: '', timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone }
  );
}

/**
 * The load types the carrier may book, of every yard it sees (the server lists only carrier-visible
 * ones). Read at login beside the context, so the first booking step needs no request of its own.
 */
export const loadTypes = signal<LoadType[] | null>(null);

export async function loadLoadTypes(): Promise<LoadType[]> {
  const page = await call(api.GET('/api/appointment/load-type', { params: { query: { limit: 200 } } }));
  loadTypes.value = page.items;
  return page.items;
}

let started: { token: string | undefined; done: Promise<void> } | null = null;

/**
 * The context and the load types, in parallel (one round trip before the first screen); once per
 * session token, so main.tsx may ask before the first render and the app again after it.
 */
export function loadStart(): Promise<void> {
  const token = session.token();
  if (!started || started.token !== token) {
    const done = Promise.all([loadContext(), loadLoadTypes()]).then(
      () => undefined,
      (err: unknown) => {
        started = null; // a later try reads again
        throw err;
      },
    );
    started = { token, done };
  }
  return started.done;
}

/** The free start times of a load type over yard-local dates `from`..`to`. */
export async function freeSlots(
  yardId: string,
  loadTypeId: string,
  from: string,
  to: string,
): Promise<FreeSlot[]> {
  const a = await call(
    api.GET('/api/appointment/availability', { params: { query: { yardId, loadTypeId, from, to } } }),
  );
  return a.slots;
}

export interface BookingDetails {
  refs: string[];
  trailerNumber: string | null;
  truckPlate: string | null;
  driverName: string | null;
  driverPhone: string | null;
}

/** Books a free time for the signed-in carrier; the key makes a retry after a lost answer harmless. */
export function book(
  choice: { yardId: string; loadTypeId: string; startAt: string },
  details: BookingDetails,
  idempotencyKey: string,
): Promise<Appointment> {
  return call(
    api.POST('/api/appointment', {
      body: { ...choice, carrierId: context.value?.carrier.id ?? '', ...details },
      headers: { 'Idempotency-Key': idempotencyKey },
    }),
  );
}

const versionTag = (version: number) => `"v${version}"`;

/** Moves a booking to another free time (If-Match: a change made meanwhile is not overwritten). */
export function moveTo(a: Appointment, startAt: string): Promise<Appointment> {
  return call(
    api.PATCH('/api/appointment/{id}', {
      params: { path: { id: a.id } },
      body: { startAt },
      headers: { 'If-Match': versionTag(a.version) },
    }),
  );
}

export function cancel(a: Appointment, reason: string): Promise<Appointment> {
  return call(
    api.POST('/api/appointment/{id}/cancel', {
      params: { path: { id: a.id } },
      body: { reason },
      headers: { 'If-Match': versionTag(a.version) },
    }),
  );
}

/** The booking just made, handed to the pass screen so it shows without reading it again. */
export const justBooked = signal<Appointment | null>(null);

export function appointment(id: string): Promise<Appointment> {
  return call(api.GET('/api/appointment/{id}', { params: { path: { id } } }));
}

/** The carrier's bookings from a day ago on, by start time (the server narrows them to its carrier). */
export async function bookings(): Promise<Appointment[]> {
  const from = new Date(Date.now() - 24 * 3600_000).toISOString();
  const page = await call(api.GET('/api/appointment', { params: { query: { from, limit: 200 } } }));
  return [...page.items].sort((a, b) => a.startAt.localeCompare(b.startAt));
}

/**
 * A file of the API fetched with the session's bearer (an <img> or a plain link cannot send it),
 * as a blob: URL for an image or a download. The caller revokes it when done.
 */
export async function fileUrl(path: string): Promise<string> {
  const res = await fetch(path, { headers: { Authorization: `Bearer ${session.token() ?? ''}` } });
  if (res.status === 401) session.expire();
  if (!res.ok) throw new Error(`The file could not be loaded (${res.status}).`);
  return URL.createObjectURL(await res.blob());
}

/** Saves a file of the API under `name` (the PDF, the .ics). */
export async function download(path: string, name: string): Promise<void> {
  const url = await fileUrl(path);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
