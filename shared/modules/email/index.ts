import type { CoreParts } from '../../core-parts.js';
import { refusedAtLinkedEdge, servedHere } from '../../http/placed-routes.js';
import type { RouteRegistrar } from '../../http/routes.js';
import type { AnyRowObserver } from '../../sync/row-observers.js';
import type { PassFiles } from './compose.js';
import { emailOutbox } from './outbox.js';
import { EMAIL_AT_CLOUD, type EmailRoutes } from './place.js';
import { EmailRepo } from './repo.js';
import { registerEmailRoutes } from './routes.js';
import { type MailSender, NodemailerSender } from './sender.js';
import { EmailService } from './service.js';
import { EmailSettingsService } from './settings.js';
import { smtpHostPolicy } from './smtp-policy.js';
import { EmailWorker, type SendingLease } from './worker.js';

/**
 * Email to carriers (docs/configuration.md "Email to carriers"), done where bookings are made and no-shows
 * arrive: the cloud, or a standalone edge. An edge linked to a cloud leaves it to the cloud: its
 * routes answer 409 `cloud-owned`, and it writes no outbox (the cloud writes it when the site's
 * rows arrive by sync). The composition root picks one of the two parts once (shared/role-parts.ts).
 */
export interface EmailPart {
  /** Where the email routes go: served here, or refused as the cloud's. */
  routes(registrar: Pick<RouteRegistrar, 'add'>): EmailRoutes;
  /** The outbox writer, told of every appointment_event row written (none at a linked edge). */
  outbox: AnyRowObserver | null;
  /** The sender, a started component (none at a linked edge). */
  worker: EmailWorker | null;
}

export type EmailDeps = Pick<CoreParts, 'config' | 'db' | 'kysely' | 'clock' | 'log' | 'changes'> & {
  /** The pass files the mails attach (appointments/pass). */
  pass: PassFiles | null;
  /** One sender across the cloud's nodes (shared/db/job-lease.ts). */
  lease: SendingLease;
  /** Default: SMTP through nodemailer (tests may count sends). */
  sender?: MailSender;
};

/** The full part: settings, outbox, sender and routes. */
export function emailHere(deps: EmailDeps): EmailPart & { service: EmailService } {
  const { kysely, clock, log, config } = deps;
  const policy = smtpHostPolicy(config.email);
  if (config.email.allowLocalSmtp) {
    log.warn(
      'email.allowLocalSmtp (YARD_EMAIL_ALLOW_LOCAL_SMTP) is on: the SMTP server may be on this box or a link-local address. Tests and labs only.',
    );
  }
  const repo = new EmailRepo(kysely);
  const sender = deps.sender ?? new NodemailerSender({ policy, timeoutMs: config.email.timeoutMs });
  const worker = new EmailWorker({
    kysely,
    clock,
    log,
    repo,
    sender,
    pass: deps.pass,
    lease: deps.lease,
    // A commit that wrote an appointment_event may have queued a mail; on PostgreSQL the commit
    // signal of email_message also tells the node holding the lease of mails queued on the others.
    onQueued: (wake) =>
      deps.changes.generations.watch(['appointmentEvent', 'emailMessage', 'emailSettings'], wake),
  });
  const settings = new EmailSettingsService({ kysely, clock, repo, policy });
  const service = new EmailService({ clock, log, repo, settings, sender, wake: () => worker.wake() });
  return {
    routes: (r) => servedHere(r, service, EMAIL_AT_CLOUD),
    outbox: emailOutbox(deps.db, clock),
    worker,
    service,
  };
}

/** An edge linked to a cloud: every email route answers 409 `cloud-owned`; nothing is queued or sent. */
export function emailAtCloud(): EmailPart {
  return { routes: (r) => refusedAtLinkedEdge<EmailService>(r, EMAIL_AT_CLOUD), outbox: null, worker: null };
}

export function registerEmail(registrar: Pick<RouteRegistrar, 'add'>, email: EmailPart): void {
  registerEmailRoutes(email.routes(registrar));
}
