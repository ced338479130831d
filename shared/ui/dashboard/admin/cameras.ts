import { api, call, type Schemas } from '../../common/api/client';
import { may } from '../access';
import { ifMatch, withEtag } from '../records/http';
import type { EntitySpec } from '../records/types';
import { yards } from '../scope';

type Camera = Schemas['Camera'];

/**
 * Yard cameras: rename, enable or disable. An ONVIF camera belongs to its site (only the edge
 * reaches it), a provider camera to the cloud. Registering one needs its address or provider.
 */
export const cameras: EntitySpec<Camera> = {
  title: 'Cameras',
  singular: 'camera',
  intro:
    'Cameras that photograph gate movements. Register a new camera through the API (POST /api/camera: its ONVIF address or provider); here they are renamed, enabled and disabled.',
  columns: [
    { label: 'Name', value: (c) => c.name },
    { label: 'Yard', value: (c) => yards.value.find((y) => y.id === c.yardId)?.code ?? '—' },
    { label: 'Source', value: (c) => (c.source === 'onvif' ? `ONVIF ${c.onvif?.xaddr ?? ''}` : 'Provider') },
    { label: 'Enabled', value: (c) => (c.enabled ? 'Yes' : 'No') },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'enabled', label: 'Enabled', kind: 'checkbox' },
    {
      name: 'verify',
      label: 'Check that the camera answers before saving',
      kind: 'checkbox',
      hint: 'off: saved even while the camera is offline',
    },
  ],
  api: {
    list: ({ cursor }) => call(api.GET('/api/camera', { params: { query: { cursor } } })),
    load: (c) => withEtag(api.GET('/api/camera/{id}', { params: { path: { id: c.id } } })),
    update: (c, body, etag) =>
      call(
        api.PATCH('/api/camera/{id}', {
          params: { path: { id: c.id } },
          // The API checks the camera unless told not to; only when the box is ticked.
          body: { verify: false, ...body } as Schemas['CameraPatch'],
          headers: ifMatch(etag),
        }),
      ),
  },
  owner: (c) => (c.source === 'provider' ? 'cloud' : 'site'),
  may: { create: () => false, edit: may.editMasterData },
  label: (c) => c.name,
  empty: 'No cameras are registered. Register one through the API (POST /api/camera).',
};
