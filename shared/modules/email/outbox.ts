import type { Clock } from '../../clock.js';
import type { AppDatabase } from '../../db/database.js';
import { once, type SqlWork, sqlRow, sqlRun, sqlValue, statement } from '../../db/sql-work.js';
import { newId } from '../../ids.js';
import { type AnyRowObserver, type RowWrite, workObserver } from '../../sync/row-observers.js';
import { appointmentPublicWork } from '../appointments/public-view.js';
import { DAY_MS as RETRY_WINDOW_MS } from '../webhooks/backoff.js';
import { contactEmailOf, emailKindOf } from './kinds.js';

/**
 * The email outbox (docs/configuration.md "Email to carriers"): each appointment_event that a carrier is
 * told of writes its email_message in the transaction of the change, whether the booking was made
 * here or the row came from a site by sync (a no-show is marked at the yard's edge): a row
 * observer on both write paths (shared/sync/row-observers.ts). So a booking never waits for SMTP,
 * and a mail is never lost to a crash between the change and the sending. The message keeps a
 * snapshot of the appointment as of the change (appointments/public-view.ts), which the mail and
 * its pass render from. Nothing is written while email is off (not configured, or disabled). An
 * event observed twice writes nothing more (unique source_event_id).
 */
export function emailOutbox(db: AppDatabase, clock: Clock): AnyRowObserver {
  return workObserver(db, { tables: EVENTS, writes: MESSAGES }, (write) => enqueue(write, clock));
}

const EVENTS: ReadonlySet<string> = new Set(['appointmentEvent']);
const MESSAGES: ReadonlySet<string> = new Set(['emailMessage']);

function* enqueue({ before, after }: RowWrite, clock: Clock): SqlWork<void> {
  if (before || !after) return;
  const kind = emailKindOf(String(after.kind), (after.detail as string | null) ?? null);
  if (!kind) return;
  const enabled = yield* once('email.enabled', () => sqlValue(EMAIL_ENABLED, []));
  if (Number(enabled ?? 0) !== 1) return;
  const appointment = yield* appointmentPublicWork(String(after.appointmentId));
  if (!appointment) return;
  const carrier = yield* sqlRow(CARRIER_CONTACT, [appointment.carrier.id]);
  const to = contactEmailOf(carrier?.contact);
  const now = clock.now();
  yield* sqlRun(MESSAGE_INSERT, [
    newId(),
    kind,
    String(after.id),
    appointment.id,
    appointment.carrier.id,
    appointment.yard.id,
    to,
    JSON.stringify(appointment),
    to ? 'pending' : 'skipped',
    to ? null : 'The carrier has no contact email: nothing was sent.',
    now,
    now + RETRY_WINDOW_MS,
    now,
  ]);
}

const EMAIL_ENABLED = statement(
  'email_settings|enabled',
  'value',
  "SELECT enabled FROM email_settings WHERE name = 'smtp'",
);

/** The carrier's contact: read beside the appointment snapshot, as public-view.ts reads its names. */
const CARRIER_CONTACT = statement('email|carrier-contact', 'row', 'SELECT contact FROM carrier WHERE id = ?');

const MESSAGE_INSERT = statement(
  'email_message|enqueue',
  'changes',
  `INSERT INTO email_message (id, kind, source_event_id, appointment_id, carrier_id, yard_id, to_address,
     snapshot, status, last_error, next_attempt_at, give_up_at, created_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
   ON CONFLICT (source_event_id) WHERE source_event_id IS NOT NULL DO NOTHING`,
);
