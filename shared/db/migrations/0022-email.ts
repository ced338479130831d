import { commitSignalTriggers, toPostgresDdl } from '../postgres-ddl.js';

/**
 * Email to carriers (docs/configuration.md "Email to carriers"): the SMTP settings (one row, the password
 * write-only over HTTP) and the email outbox, written in the transaction of the appointment change
 * it tells of and sent later by the email worker (shared/modules/email/worker.ts). Neither is synced
 * (docs/sync.md: cloud only): no hlc, no change_log.
 */
export const up = `
CREATE TABLE email_settings (
  name TEXT PRIMARY KEY CHECK (name = 'smtp'),
  enabled INTEGER NOT NULL DEFAULT 0 CHECK (enabled IN (0, 1)),
  host TEXT NOT NULL,
  port INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
  security TEXT NOT NULL CHECK (security IN ('tls', 'starttls', 'none')),
  username TEXT,
  password TEXT,
  from_address TEXT NOT NULL,
  from_name TEXT,
  reply_to TEXT,
  updated_by TEXT,
  updated_at bigint NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE email_message (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('confirmation', 'change', 'cancellation', 'no_show')),
  -- appointment_event.id: the change the mail tells of (a row observed twice adds nothing)
  source_event_id TEXT,
  appointment_id TEXT,
  carrier_id TEXT,
  yard_id TEXT,
  -- NULL: status skipped (the carrier has no contact email)
  to_address TEXT,
  -- JSON AppointmentPublic as of the change: the mail and its attachments render from it
  snapshot TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'skipped')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at bigint NOT NULL,
  give_up_at bigint NOT NULL,
  last_error TEXT,
  smtp_response TEXT,
  message_id TEXT,
  created_at bigint NOT NULL,
  sent_at bigint
);
CREATE UNIQUE INDEX email_message_source ON email_message (source_event_id) WHERE source_event_id IS NOT NULL;
CREATE INDEX email_message_due ON email_message (next_attempt_at) WHERE status = 'pending';
CREATE INDEX email_message_appointment ON email_message (appointment_id);
`;

/**
 * PostgreSQL: the translation plus the commit signal (migration 0011) on both tables, so every cloud
 * node drops its cached settings and the node holding the email worker's lease wakes on a new mail.
 */
export const upPostgres = `${toPostgresDdl(up)}
${commitSignalTriggers(['email_settings', 'email_message'])}
`;
