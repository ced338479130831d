import { page } from '../../http/common-schemas.js';
import { etagOf } from '../../http/routes.js';
import type { EmailRoutes } from './place.js';
import {
  EMAIL_TAG,
  EmailMessageListQuery,
  EmailMessageOut,
  EmailMessageParams,
  EmailSettingsOut,
  EmailSettingsPut,
  EmailTestBody,
  EmailTestResult,
} from './schema.js';

/**
 * Email to carriers, for admins (docs/configuration.md "Email to carriers"). Carriers never reach these routes: their
 * mails come to them, the settings and the queue are the organisation's.
 */
export function registerEmailRoutes(r: EmailRoutes): void {
  r.add({
    method: 'get',
    path: '/api/settings/email',
    tag: EMAIL_TAG,
    summary: 'SMTP settings for mail to carriers (password masked) and the state of the queue',
    access: ['admin'],
    response: { schema: EmailSettingsOut },
    handler: async ({ res }, email) => {
      const out = await email.view();
      res.setHeader('ETag', etagOf(out.version));
      return out;
    },
  });

  r.add({
    method: 'put',
    path: '/api/settings/email',
    tag: EMAIL_TAG,
    summary:
      'Set the SMTP server (password write-only: left out or masked keeps it, unless the server changed)',
    description:
      'Email is off until this is stored with `enabled: true`. If-Match with the ETag of the read guards ' +
      'against overwriting another admin’s change (412). The host must pass the SMTP address policy ' +
      '(400 `address-refused`: private addresses are allowed, the box itself and link-local are not). A ' +
      'new host, port or security needs the password again (400 `secret-required`). Organisation-wide: ' +
      'an admin with a yard scope may not change it (403).',
    access: ['admin'],
    body: EmailSettingsPut,
    response: { schema: EmailSettingsOut },
    errors: [409, 412],
    handler: async ({ principal, body, ifMatch, res }, email) => {
      const out = await email.put(principal, body, ifMatch);
      res.setHeader('ETag', etagOf(out.version));
      return out;
    },
  });

  r.add({
    method: 'post',
    path: '/api/settings/email/test',
    tag: EMAIL_TAG,
    summary: 'Send a test mail through the stored server now; the answer says what the server said',
    description:
      '`sent: false` with the `error` when the server refused or could not be reached (the answer is 200 ' +
      'either way); 409 `email-not-configured` before a server is stored.',
    access: ['admin'],
    body: EmailTestBody,
    response: { schema: EmailTestResult },
    errors: [409],
    handler: ({ principal, body }, email) => email.test(principal, body.to),
  });

  r.add({
    method: 'get',
    path: '/api/settings/email/message',
    tag: EMAIL_TAG,
    summary: 'Mails to carriers, newest first: pending with their last error, sent, failed, skipped',
    access: ['admin'],
    query: EmailMessageListQuery,
    response: { schema: page(EmailMessageOut) },
    handler: ({ query }, email) => email.messages(query),
  });

  r.add({
    method: 'post',
    path: '/api/settings/email/message/{id}/retry',
    tag: EMAIL_TAG,
    summary: 'Put a failed mail back in the queue (sent soon, with another 24 hours of retries)',
    access: ['admin'],
    params: EmailMessageParams,
    response: { schema: EmailMessageOut },
    errors: [404, 409],
    handler: ({ params }, email) => email.retry(params.id),
  });
}
