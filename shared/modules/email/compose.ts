import { DateTime } from 'luxon';
import type { AppointmentPublicT } from '../appointments/public-view.js';
import type { EmailKindT } from './schema.js';
import type { OutgoingMail } from './sender.js';

/** The gate pass files a mail attaches (the pass module's renderers: appointments/pass). */
export interface PassFiles {
  render(
    appointment: AppointmentPublicT,
    format: 'pdf' | 'ics',
  ): Promise<{ body: Buffer | string; contentType: string; filename: string }>;
}

/** Which pass files go with each mail: a cancelled or missed appointment gets no pass to show at the gate. */
export const ATTACHED: Record<EmailKindT, ReadonlyArray<'pdf' | 'ics'>> = {
  confirmation: ['pdf', 'ics'],
  change: ['pdf', 'ics'],
  // The .ics of a cancelled appointment (METHOD:CANCEL) takes it out of the carrier's calendar.
  cancellation: ['ics'],
  no_show: [],
};

const SUBJECT: Record<EmailKindT, string> = {
  confirmation: 'Appointment booked',
  change: 'Appointment changed',
  cancellation: 'Appointment cancelled',
  no_show: 'Missed appointment',
};

const OPENING: Record<EmailKindT, string> = {
  confirmation: 'Your dock appointment is booked. Show the attached gate pass (or its code) at the gate.',
  change: 'Your dock appointment has changed. The attached gate pass replaces the earlier one.',
  cancellation: 'Your dock appointment is cancelled. Its gate pass is no longer valid.',
  no_show: 'Your truck did not arrive for this dock appointment, which is now recorded as missed.',
};

/** The yard's wall clock with its zone: "Tue 3 Mar 2026, 08:00 CST". */
export function yardTime(iso: string, timeZone: string): string {
  return DateTime.fromISO(iso, { zone: timeZone }).toFormat('ccc d LLL yyyy, HH:mm ZZZZ');
}

/** The mail for one outbox row, in the words of the carrier's dispatcher; times in the yard's zone. */
export async function composeMail(
  kind: EmailKindT,
  to: string,
  a: AppointmentPublicT,
  /** None until the pass renderers are wired: the mail then goes without attachments. */
  pass: PassFiles | null,
): Promise<OutgoingMail> {
  const when = yardTime(a.startAt, a.yard.timeZone);
  const lines = [
    OPENING[kind],
    '',
    `Code: ${a.code}`,
    `Yard: ${a.yard.name}`,
    `Door: ${a.doorName}`,
    `Time: ${when} to ${DateTime.fromISO(a.endAt, { zone: a.yard.timeZone }).toFormat('HH:mm')}`,
    `Load: ${a.loadTypeName}`,
    `Carrier: ${a.carrier.name}`,
    ...(a.refs.length > 0 ? [`References: ${a.refs.join(', ')}`] : []),
    ...(a.trailerNumber ? [`Trailer: ${a.trailerNumber}`] : []),
    ...(a.truckPlate ? [`Truck plate: ${a.truckPlate}`] : []),
    ...(a.driverName ? [`Driver: ${a.driverName}`] : []),
    ...(kind === 'cancellation' && a.cancelReason ? [`Reason: ${a.cancelReason}`] : []),
  ];
  const attachments = [];
  for (const format of ATTACHED[kind]) {
    if (!pass) break;
    const file = await pass.render(a, format);
    attachments.push({ filename: file.filename, content: file.body, contentType: file.contentType });
  }
  return {
    to,
    subject: `${SUBJECT[kind]}: ${a.yard.name}, ${when} (code ${a.code})`,
    text: `${lines.join('\n')}\n`,
    attachments,
  };
}
