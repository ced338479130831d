import { api, call, type Schemas } from '../../common/api/client';
import { fromList, ifMatch, withEtag } from '../records/http';
import type { EntitySpec, Loaded } from '../records/types';

// What the admin screens read and write (the components call these, never the client).

export type Setting = Schemas['Setting'];
export type ApiKey = Schemas['ApiKey'];

/** Every setting with its scope, default and current value. */
export async function loadSettings(): Promise<Setting[]> {
  const page = await call(api.GET('/api/settings', { params: { query: { limit: 500 } } }));
  return page.items;
}

/** Sets one setting; null resets it to its default. */
export async function saveSetting(name: string, value: unknown): Promise<void> {
  await call(api.PUT('/api/settings', { body: { settings: { [name]: value } } }));
}

/** API keys: listed, created (the answer carries the secret, once) and revoked; never edited. */
export const apiKeyRecords: EntitySpec<ApiKey>['api'] = {
  list: ({ cursor }) => call(api.GET('/api/auth/api-key', { params: { query: { cursor } } })),
  load: async (k) => ({ record: k, etag: undefined }),
  create: (body) => call(api.POST('/api/auth/api-key', { body: body as Schemas['ApiKeyCreate'] })),
};

export function revokeApiKey(id: string): Promise<unknown> {
  return call(api.DELETE('/api/auth/api-key/{id}', { params: { path: { id } } }));
}

// Email to carriers (docs/configuration.md "Email to carriers"): the SMTP settings, a test mail,
// the outbox with its failures.

export type EmailSettings = Schemas['EmailSettings'];
export type EmailSettingsPut = Schemas['EmailSettingsPut'];
export type EmailMessage = Schemas['EmailMessage'];
export type EmailStatus = EmailMessage['status'];

/** The settings with the ETag to send back (If-Match): another admin's change is not overwritten. */
export function loadEmailSettings(): Promise<Loaded<EmailSettings>> {
  return withEtag(api.GET('/api/settings/email'));
}

export function saveEmailSettings(
  body: EmailSettingsPut,
  etag: string | undefined,
): Promise<Loaded<EmailSettings>> {
  return withEtag(api.PUT('/api/settings/email', { body, headers: ifMatch(etag) }));
}

export function sendTestMail(to: string): Promise<Schemas['EmailTestResult']> {
  return call(api.POST('/api/settings/email/test', { body: { to } }));
}

export async function loadEmailMessages(status: EmailStatus | undefined): Promise<EmailMessage[]> {
  const page = await call(
    api.GET('/api/settings/email/message', {
      params: { query: { limit: 100, status: status ? [status] : undefined } },
    }),
  );
  return page.items;
}

export function retryEmail(id: string): Promise<EmailMessage> {
  return call(api.POST('/api/settings/email/message/{id}/retry', { params: { path: { id } } }));
}

// Signed webhooks (docs/webhooks.md): endpoints, their delivery log, replay.

export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookWithSecret = Schemas['WebhookEndpointWithSecret'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookEventType = Schemas['WebhookEventType'];
export type DeliveryStatus = WebhookDelivery['status'];

export async function loadWebhooks(): Promise<WebhookEndpoint[]> {
  const page = await call(api.GET('/api/webhook', { params: { query: { limit: 200 } } }));
  return page.items;
}

export function createWebhook(body: Schemas['WebhookEndpointCreate']): Promise<WebhookWithSecret> {
  return call(api.POST('/api/webhook', { body }));
}

/** A change with the version it was made on (If-Match); rotating the secret answers the new one. */
export function updateWebhook(
  endpoint: WebhookEndpoint,
  body: Schemas['WebhookEndpointPatch'],
): Promise<WebhookWithSecret> {
  return call(
    api.PATCH('/api/webhook/{id}', {
      params: { path: { id: endpoint.id } },
      body,
      headers: ifMatch(fromList(endpoint).etag),
    }),
  );
}

export function deleteWebhook(id: string): Promise<unknown> {
  return call(api.DELETE('/api/webhook/{id}', { params: { path: { id } } }));
}

export async function loadDeliveries(
  endpointId: string,
  status: DeliveryStatus | undefined,
  cursor?: string,
): Promise<{ items: WebhookDelivery[]; nextCursor?: string | null }> {
  return call(
    api.GET('/api/webhook/{id}/delivery', {
      params: {
        path: { id: endpointId },
        query: { limit: 50, cursor, status: status ? [status] : undefined },
      },
    }),
  );
}

export function replayDelivery(endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
  return call(
    api.POST('/api/webhook/{id}/delivery/{deliveryId}/replay', {
      params: { path: { id: endpointId, deliveryId } },
    }),
  );
}
