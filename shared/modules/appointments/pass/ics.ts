import type { EventAttributes } from 'ics';
import { lazyModule } from '../../../lazy-module.js';
import type { AppointmentPublicT } from '../public-view.js';

/**
 * The appointment as an iCalendar event (RFC 5545) for the carrier's or driver's calendar. The UID
 * is stable (`<id>@yard-service`) and the SEQUENCE is the appointment's version, so a calendar
 * that imported the confirmation updates the same event on a change, and a cancellation
 * (METHOD:CANCEL, STATUS:CANCELLED) removes it. Times are UTC (calendars show them in the reader's
 * zone; the description repeats the yard's wall clock).
 */
export const ICS_PRODUCT_ID = 'yard-service/gate-pass';

const loadIcs = lazyModule(() => import('ics'));

export async function passIcs(p: AppointmentPublicT, description: string, now: number): Promise<string> {
  const { createEvent } = await loadIcs();
  const cancelled = p.status === 'cancelled';
  const event: EventAttributes & { timestamp: number } = {
    uid: `${p.id}@yard-service`,
    sequence: p.version,
    productId: ICS_PRODUCT_ID,
    method: cancelled ? 'CANCEL' : 'PUBLISH',
    status: cancelled ? 'CANCELLED' : 'CONFIRMED',
    start: Date.parse(p.startAt),
    startInputType: 'utc',
    startOutputType: 'utc',
    end: Date.parse(p.endAt),
    endInputType: 'utc',
    endOutputType: 'utc',
    title: `Dock appointment ${p.code} at ${p.yard.name}`,
    location: `${p.yard.name}, ${p.doorName}`,
    description,
    // DTSTAMP: when this copy was made (the library's own default is the machine's clock).
    timestamp: now,
  };
  const { error, value } = createEvent(event);
  if (error || !value) throw error ?? new Error('ics produced nothing');
  return value;
}
