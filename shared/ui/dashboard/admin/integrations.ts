import { api, call, type Schemas } from '../../common/api/client';
import { may } from '../access';
import { ifMatch, withEtag } from '../records/http';
import type { EntitySpec } from '../records/types';

type Integration = Schemas['Integration'];

/** Camera provider accounts: rename, enable or disable, delete. Owned by the cloud. */
export const integrations: EntitySpec<Integration> = {
  title: 'Integrations',
  singular: 'integration',
  intro:
    'Camera provider accounts. Add one through the API (POST /api/integration: its config follows the provider’s schema); here they are renamed, enabled, disabled and deleted.',
  columns: [
    { label: 'Name', value: (i) => i.name },
    { label: 'Kind', value: (i) => i.kind },
    { label: 'Enabled', value: (i) => (i.enabled ? 'Yes' : 'No') },
    { label: 'Updated', value: (i) => i.updatedAt.slice(0, 10) },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'enabled', label: 'Enabled', kind: 'checkbox' },
  ],
  api: {
    list: ({ cursor }) => call(api.GET('/api/integration', { params: { query: { cursor } } })),
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
  may: { create: () => false, edit: may.editMasterData },
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
  empty: 'No integrations yet. Add a camera provider through the API (POST /api/integration).',
};
