import type { Principal } from '../../auth/principal.js';
import { toIsoOrNull } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import { PreconditionFailedError, ValidationError } from '../../http/errors.js';
import type { OutboundPolicy } from '../../net/outbound-policy.js';
import { assertOrganisationWide } from '../auth/admin-scope.js';
import { keepsSecret, SECRET_MASK, secretsToResend } from '../integrations/secrets.js';
import type { EmailRepo, EmailSettingsRow } from './repo.js';
import type { EmailSettingsOutT, EmailSettingsPutT } from './schema.js';
import { smtpHostRefusal } from './smtp-policy.js';

export type EmailSettingsDeps = Pick<CoreParts, 'kysely' | 'clock'> & {
  repo: EmailRepo;
  /** Where the SMTP server may be (smtp-policy.ts, from the config email.allowLocalSmtp). */
  policy: OutboundPolicy;
};

/**
 * The SMTP settings (docs/configuration.md "Email to carriers"): one row, absent until an admin stores a server,
 * so email is off until configured. The password is write-only (the integrations' rule,
 * integrations/secrets.ts): reads show the mask; a write that leaves it out or sends the mask keeps
 * the stored one, except when the server (host, port) or its security changed, where it must be
 * sent again (400 `secret-required`), so an admin who was never told the password cannot point the
 * settings at a server of their own and read it there.
 */
export class EmailSettingsService {
  constructor(private readonly deps: EmailSettingsDeps) {}

  /** The stored settings, or undefined while email is not configured. */
  row(): Promise<EmailSettingsRow | undefined> {
    return this.deps.repo.settings();
  }

  async view(): Promise<EmailSettingsOutT> {
    const [row, queue] = await Promise.all([this.deps.repo.settings(), this.deps.repo.queue()]);
    return {
      configured: row !== undefined,
      enabled: row?.enabled === 1,
      host: row?.host ?? null,
      port: row?.port ?? null,
      security: row?.security ?? null,
      username: row?.username ?? null,
      password: row?.password ? SECRET_MASK : null,
      fromAddress: row?.fromAddress ?? null,
      fromName: row?.fromName ?? null,
      replyTo: row?.replyTo ?? null,
      updatedAt: toIsoOrNull(row?.updatedAt),
      version: row?.version ?? 0,
      queue: { ...queue, lastSentAt: toIsoOrNull(queue.lastSentAt) },
    };
  }

  async put(
    principal: Principal,
    body: EmailSettingsPutT,
    expectedVersion?: number,
  ): Promise<EmailSettingsOutT> {
    assertOrganisationWide(principal, 'Email settings');
    const refusal = await smtpHostRefusal(body.host, this.deps.policy);
    if (refusal) {
      throw new ValidationError(
        [{ path: 'body.host', message: refusal, code: 'address-refused' }],
        'The SMTP server is refused; nothing was stored.',
      );
    }
    const now = this.deps.clock.now();
    await this.deps.kysely.transaction().execute(async (trx) => {
      const stored = await this.deps.repo.settings(trx);
      const version = stored?.version ?? 0;
      if (expectedVersion !== undefined && expectedVersion !== version)
        throw new PreconditionFailedError(version);
      const fields = {
        enabled: body.enabled ? 1 : 0,
        host: body.host,
        port: body.port,
        security: body.security,
        username: body.username ?? null,
        password: this.passwordToStore(stored, body),
        fromAddress: body.fromAddress,
        fromName: body.fromName ?? null,
        replyTo: body.replyTo ?? null,
        updatedBy: principal.id,
        updatedAt: now,
      };
      if (!stored) {
        await this.deps.repo.insertSettings(trx, { name: 'smtp', ...fields });
        return;
      }
      if (!(await this.deps.repo.updateSettings(trx, version, fields))) {
        const current = await this.deps.repo.settings(trx);
        throw new PreconditionFailedError(current?.version ?? 0);
      }
    });
    return this.view();
  }

  /** The password the write leaves stored: the one sent, none (null), or the stored one when it may be kept. */
  private passwordToStore(stored: EmailSettingsRow | undefined, body: EmailSettingsPutT): string | null {
    if (body.password === null) return null;
    if (!keepsSecret(body.password)) return body.password as string;
    if (!stored?.password) {
      if (body.password === SECRET_MASK) {
        throw new ValidationError(
          [
            {
              path: 'body.password',
              message: 'no password is stored: send the password itself',
              code: 'secret-required',
            },
          ],
          'No password is stored to keep; nothing was stored.',
        );
      }
      return null;
    }
    // The same rule as integration secrets: a kept secret never goes to a new server or a new way.
    const resend = secretsToResend(
      { urls: [serverOrigin(stored)], config: { type: stored.security } },
      { urls: [serverOrigin(body)], config: { type: body.security } },
      ['password'],
    );
    if (resend.length > 0) {
      throw new ValidationError(
        [
          {
            path: 'body.password',
            message: `required again: the server or its security changed (now ${body.host}:${body.port}, ${body.security}), and a stored password is never sent to a new server or a new way`,
            code: 'secret-required',
          },
        ],
        'The SMTP server changed: send the password again with it; nothing was stored.',
      );
    }
    return stored.password;
  }
}

/**
 * The server as an origin for secretsToResend, which compares origins: scheme, host and port. An
 * SMTP server has no URL scheme of its own there, so https stands in for every one of them alike.
 */
function serverOrigin(s: { host: string; port: number }): string {
  const host = s.host.includes(':') && !s.host.startsWith('[') ? `[${s.host}]` : s.host;
  return `https://${host}:${s.port}`;
}
