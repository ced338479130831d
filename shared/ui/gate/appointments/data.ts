import { api, call } from '../../common/api/client';
import { dayStart, yardToday } from '../../common/time';
import { nextDay } from '../movements/date-range';
import { type Appointment, SHOWN_STATUSES } from './expected-rows';

/**
 * What the gate house reads of the appointments (docs/api.md "Appointments"): today's list of the
 * desk's yard, one appointment by its code, and the yard's late grace.
 */

/** Today in the yard, as the instants its day starts and ends (its own midnight, DST included). */
export function yardDay(timeZone: string, now = Date.now()): { date: string; from: number; to: number } {
  const date = yardToday(timeZone, now);
  return { date, from: dayStart(date, timeZone), to: dayStart(nextDay(date), timeZone) };
}

/** The yard's appointments starting within [from, to), every page of them, except the cancelled. */
export async function loadDay(yardId: string, from: number, to: number): Promise<Appointment[]> {
  const out: Appointment[] = [];
  let cursor: string | undefined;
  do {
    const page = await call(
      api.GET('/api/appointment', {
        params: {
          query: {
            yardId,
            from: new Date(from).toISOString(),
            to: new Date(to).toISOString(),
            status: SHOWN_STATUSES.join(','),
            limit: 500,
            ...(cursor ? { cursor } : {}),
          },
        },
      }),
    );
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

/** Today's appointment of the clerk's yards with this code (typed or scanned); 404 when none. */
export function findByCode(code: string, signal?: AbortSignal): Promise<Appointment> {
  return call(api.GET('/api/appointment/by-code/{code}', { params: { path: { code } }, signal }));
}

/** Minutes after the start before an appointment counts as late (the yard's scheduling config). */
export async function lateGraceMinutes(yardId: string): Promise<number> {
  const config = await call(api.GET('/api/appointment/config/{yardId}', { params: { path: { yardId } } }));
  return config.lateGraceMinutes;
}

/** The yard's load types by id: their direction tells whether the trailer arrives loaded. */
export async function loadTypes(yardId: string): Promise<Map<string, { direction: string; name: string }>> {
  const page = await call(
    api.GET('/api/appointment/load-type', { params: { query: { yardId, limit: 500 } } }),
  );
  return new Map(page.items.map((t) => [t.id, t]));
}
