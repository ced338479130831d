import { api, call, type Schemas } from '../../common/api/client';
import type { EntitySpec } from '../records/types';

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
