import { stringify } from 'csv-stringify/sync';
import { DateTime } from 'luxon';
import { neutralizeFormula } from '../../http/export-text.js';
import type { DetentionItemT } from './report-schema.js';

/**
 * The detention report as CSV (docs/domain.md "Wait and detention"): one row per appointment, so
 * the office can answer a carrier's detention claim with the times, the figures, the gate
 * movements and the ids of their photos. Times are the yard's wall clock with its offset (what the
 * carrier's paperwork shows); figures are minutes. Text a spreadsheet would run as a formula
 * (a trailer number or a ref typed as "=...") gets an apostrophe first; numbers and times we
 * wrote are left as they are.
 */
const COLUMNS = [
  'Appointment code',
  'Yard',
  'Door',
  'Carrier',
  'Load type',
  'Refs',
  'Trailer',
  'Truck',
  'Status',
  'Arrival',
  'Booked start',
  'Arrived',
  'Docked',
  'Completed',
  'Departed',
  'Marked no-show',
  'Clock start',
  'Free time (min)',
  'Wait (min)',
  'Turn (min)',
  'Detention (min)',
  'Gate movements',
  'Photo attachment ids',
];

const ARRIVAL: Record<string, string> = { early: 'early', on_time: 'on time', late: 'late' };
const STATUS: Record<string, string> = {
  scheduled: 'scheduled',
  arrived: 'arrived',
  docked: 'docked',
  completed: 'completed',
  cancelled: 'cancelled',
  no_show: 'no-show',
};

export function detentionCsv(items: readonly DetentionItemT[]): string {
  const body = items.map((i) => {
    const local = (iso: string | null) => (iso === null ? '' : yardTime(iso, i.timeZone));
    const text = (value: string | null) => (value === null ? '' : neutralizeFormula(value));
    const minutes = (value: number | null) => (value === null ? '' : String(value));
    return [
      i.code,
      text(i.yardCode),
      text(i.doorName),
      text(i.carrierName),
      text(i.loadTypeName),
      text(i.refs.join(' ')),
      text(i.trailerNumber),
      text(i.truckPlate),
      STATUS[i.status] ?? i.status,
      i.arrival === null ? '' : (ARRIVAL[i.arrival] ?? i.arrival),
      local(i.startAt),
      local(i.arrivedAt),
      local(i.dockedAt),
      local(i.completedAt),
      local(i.departedAt),
      local(i.noShowAt),
      local(i.clockStartAt),
      String(i.freeTimeMinutes),
      minutes(i.waitMinutes),
      minutes(i.turnMinutes),
      minutes(i.detentionMinutes),
      text(
        i.movements
          .map((m) => {
            const where = m.gateName ? ` at ${m.gateName}` : '';
            return `${m.direction === 'in' ? 'check-in' : 'check-out'} ${yardTime(m.at, i.timeZone)}${where} (movement ${m.id})`;
          })
          .join('; '),
      ),
      [...new Set(i.movements.flatMap((m) => m.attachmentIds))].join(' '),
    ];
  });
  return stringify([COLUMNS, ...body], { record_delimiter: 'windows' });
}

/** An instant as the yard's wall clock with its offset, to the second: 2026-03-02T10:40:00-06:00. */
function yardTime(iso: string, timeZone: string): string {
  const dt = DateTime.fromISO(iso, { zone: timeZone });
  return dt.isValid ? (dt.toISO({ suppressMilliseconds: true }) ?? iso) : iso;
}
