import { isIP } from 'node:net';
import { lazyModule } from '../../lazy-module.js';
import type { OutboundPolicy } from '../../net/outbound-policy.js';
import type { EmailSettingsRow } from './repo.js';
import { smtpAddress } from './smtp-policy.js';

/** nodemailer, loaded at the first mail (shared/lazy-module.ts): email is off until configured. */
const loadNodemailer = lazyModule(async () => (await import('nodemailer')).default);

/** A mail as the outbox renders it (compose.ts). */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  attachments: Array<{ filename: string; content: Buffer | string; contentType: string }>;
}

/** What the SMTP server answered to an accepted mail. */
export interface SentMail {
  messageId: string;
  response: string;
}

/** Sends one mail through the SMTP server of the settings (an interface, so tests may count calls). */
export interface MailSender {
  send(settings: EmailSettingsRow, mail: OutgoingMail): Promise<SentMail>;
}

/**
 * SMTP through nodemailer (docs/security.md "SMTP"). The host is checked by the SMTP address policy
 * as it resolves now and nodemailer is given the checked address, with the name kept for TLS
 * (servername: the certificate is checked against the name). TLS certificates are verified; with
 * `starttls` a server that does not offer STARTTLS is refused rather than written to in clear. No
 * logger: nodemailer's debug output would show the AUTH exchange.
 */
export class NodemailerSender implements MailSender {
  constructor(private readonly opts: { policy: OutboundPolicy; timeoutMs: number }) {}

  async send(settings: EmailSettingsRow, mail: OutgoingMail): Promise<SentMail> {
    const address = await smtpAddress(settings.host, this.opts.policy);
    const name = settings.host.replace(/^\[|\]$/g, '');
    const nodemailer = await loadNodemailer();
    const transport = nodemailer.createTransport({
      host: address,
      port: settings.port,
      secure: settings.security === 'tls',
      requireTLS: settings.security === 'starttls',
      ignoreTLS: settings.security === 'none',
      ...(settings.username ? { auth: { user: settings.username, pass: settings.password ?? '' } } : {}),
      tls: { ...(isIP(name) ? {} : { servername: name }), rejectUnauthorized: true },
      connectionTimeout: this.opts.timeoutMs,
      greetingTimeout: this.opts.timeoutMs,
      socketTimeout: this.opts.timeoutMs,
      logger: false,
      debug: false,
    });
    try {
      const info = await transport.sendMail({
        from: settings.fromName
          ? { name: settings.fromName, address: settings.fromAddress }
          : settings.fromAddress,
        ...(settings.replyTo ? { replyTo: settings.replyTo } : {}),
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        attachments: mail.attachments,
      });
      return { messageId: String(info.messageId), response: String(info.response) };
    } finally {
      transport.close();
    }
  }
}

/**
 * An error of a send as an admin reads it in the queue: the message (nodemailer's messages name the
 * step and the server's answer, never the credentials), with the SMTP code when there is one.
 */
export function sendError(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown; responseCode?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const code = typeof e?.code === 'string' ? ` (${e.code})` : '';
  return `${message}${code}`.slice(0, 1000);
}
