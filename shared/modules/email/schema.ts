import { Id, IsoDateTime, PageQuery, queryList } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';
import { SECRET_MASK } from '../integrations/secrets.js';

export const EMAIL_TAG = 'Email';

export const SMTP_SECURITY = ['tls', 'starttls', 'none'] as const;
export const EMAIL_KINDS = ['confirmation', 'change', 'cancellation', 'no_show'] as const;
export const EMAIL_STATUSES = ['pending', 'sent', 'failed', 'skipped'] as const;

const SmtpSecurity = z.enum(SMTP_SECURITY).openapi({
  description:
    'tls: TLS from the first byte (port 465); starttls: plain then upgraded, refused when the server does not offer it (587); none: plain text (lab servers only)',
});

/** A host name or an IP address, without scheme, port or path. */
const SmtpHost = z
  .string()
  .min(1)
  .max(253)
  .regex(/^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|[0-9A-Fa-f:.]+)$/, {
    message: 'must be a host name or an IP address (no scheme, port or path)',
  })
  .openapi({ example: 'smtp.example.com' });

const EmailQueue = z.object({
  pending: z.number().int().openapi({ description: 'mails waiting to be sent (or retried)' }),
  failed: z.number().int().openapi({ description: 'mails given up on after 24 hours of retries' }),
  lastSentAt: IsoDateTime.nullable(),
  lastError: z.string().nullable().openapi({ description: 'the error of the latest mail that is not sent' }),
});

export const EmailSettingsOut = z
  .object({
    configured: z
      .boolean()
      .openapi({ description: 'false until an admin has stored a server: no mail is written or sent' }),
    enabled: z.boolean(),
    host: z.string().nullable(),
    port: z.number().int().nullable(),
    security: SmtpSecurity.nullable(),
    username: z.string().nullable(),
    password: z
      .literal(SECRET_MASK)
      .nullable()
      .openapi({ description: 'write-only: the mask when a password is stored, else null' }),
    fromAddress: z.string().nullable(),
    fromName: z.string().nullable(),
    replyTo: z.string().nullable(),
    updatedAt: IsoDateTime.nullable(),
    version: z.number().int().openapi({ description: '0 until configured; If-Match on PUT' }),
    queue: EmailQueue,
  })
  .openapi('EmailSettings');

export const EmailSettingsPut = z
  .object({
    enabled: z.boolean(),
    host: SmtpHost,
    port: z.number().int().min(1).max(65535),
    security: SmtpSecurity,
    username: z.string().min(1).max(200).nullable().optional(),
    password: z
      .string()
      .min(1)
      .max(500)
      .nullable()
      .optional()
      .openapi({
        description: `left out or "${SECRET_MASK}": keep the stored password (not after a change of host, port or security: send it again, else 400 secret-required); null: no password`,
      }),
    fromAddress: z.email().max(200),
    fromName: z.string().min(1).max(120).nullable().optional(),
    replyTo: z.email().max(200).nullable().optional(),
  })
  .strict()
  .openapi('EmailSettingsPut', {
    description: 'The SMTP server mails to carriers go through. Off (enabled false) writes no mail.',
    example: {
      enabled: true,
      host: 'smtp.example.com',
      port: 587,
      security: 'starttls',
      username: 'yard-mail',
      password: 'app-password',
      fromAddress: 'gate@yard.example.com',
      fromName: 'North Yard gate',
    },
  });

export const EmailTestBody = z
  .object({ to: z.email().max(200) })
  .strict()
  .openapi('EmailTest', { description: 'Where the test mail goes.', example: { to: 'ops@example.com' } });

export const EmailTestResult = z
  .object({
    sent: z.boolean(),
    messageId: z.string().nullable(),
    response: z.string().nullable().openapi({ description: "the SMTP server's last answer" }),
    error: z.string().nullable(),
  })
  .openapi('EmailTestResult');

export const EmailMessageOut = z
  .object({
    id: Id,
    kind: z.enum(EMAIL_KINDS),
    appointmentId: Id.nullable(),
    toAddress: z.string().nullable(),
    status: z.enum(EMAIL_STATUSES).openapi({
      description:
        'pending (waiting or retried), sent, failed (given up after 24 hours), skipped (the carrier has no contact email)',
    }),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    smtpResponse: z.string().nullable(),
    createdAt: IsoDateTime,
    sentAt: IsoDateTime.nullable(),
    nextAttemptAt: IsoDateTime.nullable(),
    giveUpAt: IsoDateTime,
  })
  .openapi('EmailMessage');

export const EmailMessageListQuery = PageQuery.extend({
  status: queryList(z.enum(EMAIL_STATUSES)),
  appointmentId: Id.optional(),
});

export const EmailMessageParams = z.object({ id: Id });

export type EmailSettingsOutT = z.infer<typeof EmailSettingsOut>;
export type EmailSettingsPutT = z.infer<typeof EmailSettingsPut>;
export type EmailMessageOutT = z.infer<typeof EmailMessageOut>;
export type SmtpSecurityT = (typeof SMTP_SECURITY)[number];
export type EmailKindT = (typeof EMAIL_KINDS)[number];
