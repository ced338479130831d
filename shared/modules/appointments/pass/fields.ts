import type { AppointmentPublicT } from '../public-view.js';
import type { AppointmentStatus } from '../status.js';
import { passWhen } from './when.js';

/** The status in the words a driver reads. */
export const STATUS_WORDS: Record<AppointmentStatus, string> = {
  scheduled: 'Booked',
  arrived: 'Arrived',
  docked: 'At the door',
  completed: 'Completed',
  cancelled: 'Cancelled',
  no_show: 'Missed (no-show)',
};

/**
 * What every form of the pass says, in this order (the PDF, the HTML page and the .ics description
 * print the same lines): labels as a person reads them, empty fields left out.
 */
export function passFields(p: AppointmentPublicT): [label: string, value: string][] {
  const fields: [string, string | null][] = [
    ['Code', p.code],
    ['Yard', p.yard.name],
    ['Door', p.doorName],
    ['When', passWhen(p)],
    ['Load', p.loadTypeName],
    ['Carrier', p.carrier.name],
    ['Trailer', p.trailerNumber],
    ['Truck', p.truckPlate],
    ['Driver', p.driverName],
    ['Refs', p.refs.length > 0 ? p.refs.join(', ') : null],
    ['Status', STATUS_WORDS[p.status]],
  ];
  return fields.filter((f): f is [string, string] => f[1] !== null && f[1] !== '');
}

/** The fields as plain text lines ("Door: Door 4"), for the calendar event's description. */
export function passText(p: AppointmentPublicT): string {
  const lines = passFields(p).map(([label, value]) => `${label}: ${value}`);
  if (p.status === 'cancelled' && p.cancelReason) lines.push(`Reason: ${p.cancelReason}`);
  return lines.join('\n');
}
