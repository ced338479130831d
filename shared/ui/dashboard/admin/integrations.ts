import { api, call, type Schemas } from '../../common/api/client';
import { may } from '../access';
import { ifMatch, withEtag } from '../records/http';
import { lookup } from '../records/lookups';
import type { EntitySpec } from '../records/types';

type Integration = Schemas['Integration'];

/** The provider kinds this server supports (their config schemas are in the API docs). */
const providerKinds = lookup(
  'Choose…',
  () => 'all',
  async () => {
    const page = await call(api.GET('/api/integration/camera-provider'));
    return page.items.map((k) => ({ value: k.kind, label: `${k.title} (${k.kind})` }));
  },
);

/** Camera provider accounts: rename, enable or disable, delete. Owned by the cloud. */
export const integrations: EntitySpec<Integration> = {
  title: 'Integrations',
  singular: 'integration',
  intro:
    'Camera provider accounts (an NVR, a cloud camera service). Their cameras are then registered under Cameras.',
  columns: [
    { label: 'Name', value: (i) => i.name },
    { label: 'Kind', value: (i) => i.kind },
    { label: 'Enabled', value: (i) => (i.enabled ? 'Yes' : 'No') },
    { label: 'Updated', value: (i) => i.updatedAt.slice(0, 10) },
  ],
  fields: [
    { name: 'kind', label: 'Kind', kind: 'lookup', lookup: providerKinds, required: true, createOnly: true },
    { name: 'name', label: 'Name', required: true, hint: 'unique' },
    { name: 'enabled', label: 'Enabled', kind: 'checkbox', initial: true },
    {
      name: 'config',
      label: 'Configuration (JSON)',
      kind: 'json',
      required: true,
      hint: 'the fields the kind asks for; secrets show as ******** and are kept unless you type new ones',
    },
  ],
  api: {
    list: ({ cursor }) => call(api.GET('/api/integration', { params: { query: { cursor } } })),
    create: (body) => call(api.POST('/api/integration', { body: body as Schemas['IntegrationCreate'] })),
    load: (i) => withEtag(api.GET('/api/integration/{id}', { params: { path: { id: i.id } } })),
    update: (i, body, etag) =>
      call(
        api.PATCH('/api/integration/{id}', {
          params: { path: { id: i.id } },
          body: body as Schemas['IntegrationPatch'],
          headers: ifMatch(etag),
        }),
      ),
  },
  owner: 'cloud',
  may: { create: may.editMasterData, edit: may.editMasterData },
  actions: [
    {
      label: 'Delete',
      danger: true,
      confirm: (i) => `Delete the integration ${i.name}? This cannot be undone.`,
      run: ({ record }) => call(api.DELETE('/api/integration/{id}', { params: { path: { id: record.id } } })),
      may: may.editMasterData,
      done: (i) => `Deleted the integration ${i.name}.`,
    },
  ],
  label: (i) => i.name,
  empty: 'No integrations yet. Add a camera provider account with “New integration”.',
};
