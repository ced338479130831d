import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, call, type Schemas } from '../../common/api/client';
import { allPages } from '../../common/api/pages';
import { onLive } from '../../common/live';
import { dayBounds } from './schedule-layout';

export type Appointment = Schemas['Appointment'];
export type LoadType = Schemas['LoadType'];
export type SchedulingConfig = Schemas['SchedulingConfig'];
export type FreeSlot = Schemas['FreeSlot'];

export interface Door {
  id: string;
  name: string;
  capacity: number;
}

/** Everything the day view of one yard shows. */
export interface DayData {
  doors: Door[];
  config: SchedulingConfig;
  loadTypes: LoadType[];
  /** The day's appointments (also those running over from the day before), cancelled ones included. */
  appointments: Appointment[];
}

/** Door names in natural order (Door 2 before Door 10), as booking assigns doors (docs/domain.md). */
const byName = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/**
 * The dock doors of a yard with their capacity (appointments at once), in door order. Inactive
 * doors take no bookings, so they get no column.
 */
async function loadDoors(yardId: string): Promise<Door[]> {
  const locations = await allPages((cursor) =>
    call(
      api.GET('/api/yard/{id}/location', {
        params: { path: { id: yardId }, query: { kind: 'door', status: 'active', limit: 500, cursor } },
      }),
    ),
  );
  return locations
    .map((l) => ({ id: l.id, name: l.name, capacity: l.capacity ?? 1 }))
    .sort((a, b) => byName.compare(a.name, b.name));
}

/** The appointments overlapping the yard-local day (one that starts the evening before and runs past midnight too). */
async function loadAppointments(yardId: string, date: string, timeZone: string): Promise<Appointment[]> {
  const day = dayBounds(date, timeZone);
  const from = new Date(day.start - 24 * 3600_000).toISOString();
  const to = new Date(day.end).toISOString();
  const all = await allPages((cursor) =>
    call(api.GET('/api/appointment', { params: { query: { yardId, from, to, limit: 500, cursor } } })),
  );
  return all.filter((a) => Date.parse(a.endAt) > day.start);
}

type YardPart = Omit<DayData, 'appointments'>;

/** The yard's doors, config and load types: the same for every day, so a change of day reuses them. */
function loadYardPart(yardId: string): Promise<YardPart> {
  return Promise.all([
    loadDoors(yardId),
    call(api.GET('/api/appointment/config/{yardId}', { params: { path: { yardId } } })),
    allPages((cursor) =>
      call(api.GET('/api/appointment/load-type', { params: { query: { yardId, limit: 500, cursor } } })),
    ),
  ]).then(([doors, config, loadTypes]) => ({ doors, config, loadTypes }));
}

/**
 * The day of one yard, kept current: loaded on open and on a change of yard or date, then each
 * `appointment.changed` event of that yard replaces (or adds) its appointment, so bookings made
 * elsewhere, arrivals at the gate and docking appear without a reload. After a reconnect that
 * may have missed events, the day is loaded again.
 */
export function useDaySchedule(yardId: string, date: string, timeZone: string) {
  const [data, setData] = useState<DayData | null>(null);
  const [problem, setProblem] = useState<unknown>(null);
  const seq = useRef(0);
  // The yard's part, loaded once per yard (and again on reload: a reconnect, a refused move).
  const yardPart = useRef<{ yardId: string; part: Promise<YardPart> } | null>(null);
  const load = useCallback(
    async (fresh: boolean) => {
      const mine = ++seq.current;
      if (fresh || yardPart.current?.yardId !== yardId) {
        yardPart.current = { yardId, part: loadYardPart(yardId) };
      }
      const part = yardPart.current.part;
      try {
        const [yardData, appointments] = await Promise.all([part, loadAppointments(yardId, date, timeZone)]);
        if (mine === seq.current) {
          setData({ ...yardData, appointments });
          setProblem(null);
        }
      } catch (err) {
        if (yardPart.current?.part === part) yardPart.current = null;
        if (mine === seq.current) setProblem(err);
      }
    },
    [yardId, date, timeZone],
  );
  const reload = useCallback(() => load(true), [load]);
  /** Puts a changed appointment in the day (or takes it out when it moved to another day or yard). */
  const apply = useCallback(
    (a: Appointment) => {
      const day = dayBounds(date, timeZone);
      const onDay = a.yardId === yardId && Date.parse(a.endAt) > day.start && Date.parse(a.startAt) < day.end;
      setData((d) => {
        if (!d) return d;
        const others = d.appointments.filter((x) => x.id !== a.id);
        const old = d.appointments.find((x) => x.id === a.id);
        // An older copy (an event overtaken by our own answer) never replaces a newer one.
        if (old && old.version > a.version) return d;
        return { ...d, appointments: onDay ? [...others, a] : others };
      });
    },
    [yardId, date, timeZone],
  );
  useEffect(() => {
    setData(null);
    void load(false);
    return onLive(
      ['appointment.changed'],
      (e) => {
        const a = (e.data as Schemas['AppointmentChangedEvent'] | null)?.data;
        if (a?.id) apply(a);
      },
      () => void reload(),
    );
  }, [load, reload, apply]);
  return { data, problem, reload, apply };
}

/** The free start times of a day for a load type; staff see the doors free for each. */
export async function freeSlots(yardId: string, loadTypeId: string, date: string): Promise<FreeSlot[]> {
  const answer = await call(
    api.GET('/api/appointment/availability', { params: { query: { yardId, loadTypeId, date } } }),
  );
  return answer.slots;
}

export function book(body: Schemas['AppointmentCreate']): Promise<Appointment> {
  return call(api.POST('/api/appointment', { body }));
}

/**
 * Moves an appointment to another start and/or door, with If-Match of the version the schedule
 * shows: a change made meanwhile by someone else is refused (412), never overwritten.
 */
export function reschedule(
  a: Appointment,
  change: { startAt?: string; doorId?: string },
): Promise<Appointment> {
  return call(
    api.PATCH('/api/appointment/{id}', {
      params: { path: { id: a.id } },
      // The refs as they are: the contract's PATCH body defaults a missing refs to none (zod
      // default under partial), which would wipe them on a move.
      body: { ...change, refs: a.refs },
      headers: { 'If-Match': `"v${a.version}"` },
    }),
  );
}

export function cancel(a: Appointment, reason: string): Promise<Appointment> {
  return call(
    api.POST('/api/appointment/{id}/cancel', {
      params: { path: { id: a.id } },
      body: { reason },
      headers: { 'If-Match': `"v${a.version}"` },
    }),
  );
}
