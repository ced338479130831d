import type { Principal } from '../../auth/principal.js';
import { toIso, toIsoOrNull } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { ConflictError, InvalidTransitionError, NotFoundError } from '../../http/errors.js';
import { assertOrganisationWide } from '../auth/admin-scope.js';
import { DAY_MS as RETRY_WINDOW_MS } from '../webhooks/backoff.js';
import type { EmailMessageRow, EmailRepo } from './repo.js';
import type { EmailMessageOutT, EmailSettingsOutT, EmailSettingsPutT } from './schema.js';
import { type MailSender, sendError } from './sender.js';
import type { EmailSettingsService } from './settings.js';

export type EmailServiceDeps = Pick<CoreParts, 'clock' | 'log'> & {
  repo: EmailRepo;
  settings: EmailSettingsService;
  sender: MailSender;
  /** Wakes the sender (worker.ts): the settings changed, or a mail was put back in the queue. */
  wake: () => void;
};

/**
 * Email as admins run it (docs/configuration.md "Email to carriers"): the SMTP settings, a test mail sent at once, and the
 * outbox with what failed and why, where a failed mail can be put back in the queue.
 */
export class EmailService {
  constructor(private readonly deps: EmailServiceDeps) {}

  view(): Promise<EmailSettingsOutT> {
    return this.deps.settings.view();
  }

  async put(
    principal: Principal,
    body: EmailSettingsPutT,
    expectedVersion?: number,
  ): Promise<EmailSettingsOutT> {
    const out = await this.deps.settings.put(principal, body, expectedVersion);
    this.deps.wake();
    return out;
  }

  /**
   * A test mail through the stored server, sent now (enabled or not, so a server can be tried
   * before mail is turned on); the answer says what the server said or why it failed.
   */
  async test(principal: Principal, to: string) {
    assertOrganisationWide(principal, 'Email settings');
    const settings = await this.deps.settings.row();
    if (!settings) {
      throw new ConflictError(
        'email-not-configured',
        'No SMTP server is set: store the email settings first.',
      );
    }
    try {
      const sent = await this.deps.sender.send(settings, {
        to,
        subject: 'Test mail from the yard service',
        text: 'This is a test mail. The yard service can send mail to carriers through this server.\n',
        attachments: [],
      });
      return { sent: true, messageId: sent.messageId, response: sent.response, error: null };
    } catch (err) {
      const error = sendError(err);
      this.deps.log.warn({ error }, 'the test mail was not sent');
      return { sent: false, messageId: null, response: null, error };
    }
  }

  async messages(query: {
    limit: number;
    cursor?: string | undefined;
    status?: EmailMessageRow['status'][] | undefined;
    appointmentId?: string | undefined;
  }) {
    const beforeId = query.cursor ? String(decodeCursor(query.cursor, 1)[0]) : undefined;
    const rows = await this.deps.repo.messages({ ...query, beforeId });
    return toPage(rows, query.limit, messageOut, (r) => [r.id]);
  }

  /** A failed mail back in the queue, due now, with another 24 hours of retries (409 unless failed). */
  async retry(id: string): Promise<EmailMessageOutT> {
    const row = await this.deps.repo.message(id);
    if (!row) throw new NotFoundError('Email message', id);
    const now = this.deps.clock.now();
    if (!(await this.deps.repo.requeue(id, now, now + RETRY_WINDOW_MS))) {
      throw new InvalidTransitionError(
        row.status,
        'pending',
        `Only a mail that failed can be sent again; this one is ${row.status}.`,
      );
    }
    this.deps.wake();
    return messageOut((await this.deps.repo.message(id))!);
  }
}

function messageOut(row: EmailMessageRow): EmailMessageOutT {
  return {
    id: row.id,
    kind: row.kind,
    appointmentId: row.appointmentId,
    toAddress: row.toAddress,
    status: row.status,
    attempts: row.attempts,
    lastError: row.lastError,
    smtpResponse: row.smtpResponse,
    createdAt: toIso(row.createdAt),
    sentAt: toIsoOrNull(row.sentAt),
    nextAttemptAt: row.status === 'pending' ? toIso(row.nextAttemptAt) : null,
    giveUpAt: toIso(row.giveUpAt),
  };
}
