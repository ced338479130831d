/** Email to carriers: the SMTP settings and the outbox (migration 0022; local, never synced). */
import type { Generated } from 'kysely';

export type SmtpSecurity = 'tls' | 'starttls' | 'none';

export interface EmailSettingsTable {
  name: 'smtp';
  enabled: Generated<number>;
  host: string;
  port: number;
  security: SmtpSecurity;
  username: string | null;
  /** Write-only over HTTP, never logged. */
  password: string | null;
  fromAddress: string;
  fromName: string | null;
  replyTo: string | null;
  updatedBy: string | null;
  updatedAt: number;
  version: Generated<number>;
}

export type EmailKind = 'confirmation' | 'change' | 'cancellation' | 'no_show';
export type EmailStatus = 'pending' | 'sent' | 'failed' | 'skipped';

export interface EmailMessageTable {
  id: string;
  kind: EmailKind;
  sourceEventId: string | null;
  appointmentId: string | null;
  carrierId: string | null;
  yardId: string | null;
  toAddress: string | null;
  /** JSON AppointmentPublic as of the change. */
  snapshot: string;
  status: Generated<EmailStatus>;
  attempts: Generated<number>;
  nextAttemptAt: number;
  giveUpAt: number;
  lastError: string | null;
  smtpResponse: string | null;
  messageId: string | null;
  createdAt: number;
  sentAt: number | null;
}
