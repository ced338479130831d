import { api, call, type Schemas } from '../../common/api/client';
import { may } from '../access';
import { chosenYardId } from '../records/chosen-yard';
import { ifMatch, withEtag } from '../records/http';
import { lookup } from '../records/lookups';
import type { EntitySpec } from '../records/types';
import { yard } from '../scope';

type Camera = Schemas['Camera'];

/** The chosen yard's gates, for the gate a camera photographs. */
const yardGates = lookup(
  'No gate',
  () => yard.value?.id ?? '',
  async () => {
    const page = await call(
      api.GET('/api/yard/{id}/gate', { params: { path: { id: chosenYardId() }, query: { limit: 500 } } }),
    );
    return page.items.map((g) => ({ value: g.id, label: g.name }));
  },
);

/** The camera provider accounts, for a provider camera. */
const providerAccounts = lookup(
  'Not a provider camera',
  () => 'all',
  async () => {
    const page = await call(api.GET('/api/integration', { params: { query: { limit: 500 } } }));
    return page.items.map((i) => ({ value: i.id, label: `${i.name} (${i.kind})` }));
  },
);

function gateName(id: string | null): string {
  if (!id) return '—';
  yardGates.load();
  return yardGates.options().find((o) => o.value === id)?.label ?? 'another gate';
}

/**
 * The chosen yard's cameras: register (an ONVIF camera on the yard's network, or one of a provider
 * account), rename, point at a gate, enable or disable. An ONVIF camera belongs to its site (only
 * the edge reaches it), a provider camera to the cloud.
 */
export const cameras: EntitySpec<Camera> = {
  title: 'Cameras',
  singular: 'camera',
  intro: () =>
    `Cameras of ${yard.value?.name ?? 'the chosen yard'} that photograph gate movements: an ONVIF camera on the yard's network (its device address and login), or a camera of a provider account (Integrations).`,
  columns: [
    { label: 'Name', value: (c) => c.name },
    { label: 'Gate', value: (c) => gateName(c.gateId) },
    {
      label: 'Source',
      value: (c) =>
        c.source === 'onvif'
          ? `ONVIF ${c.onvif?.xaddr ?? ''}`
          : `Provider camera ${c.provider?.providerCameraId ?? ''}`,
    },
    { label: 'Enabled', value: (c) => (c.enabled ? 'Yes' : 'No') },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true, hint: 'unique in the yard' },
    { name: 'gateId', label: 'Gate', kind: 'lookup', lookup: yardGates, nullable: true },
    { name: 'enabled', label: 'Enabled', kind: 'checkbox', initial: true },
    {
      name: 'onvif.xaddr',
      label: 'ONVIF device address',
      hint: 'e.g. http://192.168.1.20/onvif/device_service',
    },
    { name: 'onvif.username', label: 'ONVIF username' },
    {
      name: 'onvif.password',
      label: 'ONVIF password',
      kind: 'password',
      hint: 'never shown; leave empty to keep',
    },
    { name: 'provider.integrationId', label: 'Provider account', kind: 'lookup', lookup: providerAccounts },
    { name: 'provider.providerCameraId', label: 'Camera id at the provider' },
    {
      name: 'verify',
      label: 'Check that the camera answers before saving',
      kind: 'checkbox',
      hint: 'off: saved even while the camera is offline',
    },
  ],
  api: {
    list: ({ cursor }) =>
      call(api.GET('/api/camera', { params: { query: { cursor, yardId: chosenYardId() } } })),
    load: (c) => withEtag(api.GET('/api/camera/{id}', { params: { path: { id: c.id } } })),
    create: (body) =>
      call(
        api.POST('/api/camera', {
          body: { verify: false, ...body, yardId: chosenYardId() } as Schemas['CameraCreate'],
        }),
      ),
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
  may: { create: may.editMasterData, edit: may.editMasterData },
  actions: [
    {
      label: 'Remove',
      danger: true,
      confirm: (c) => `Remove the camera ${c.name}? Its pictures already taken stay with their movements.`,
      run: ({ record }) => call(api.DELETE('/api/camera/{id}', { params: { path: { id: record.id } } })),
      may: may.editMasterData,
      done: (c) => `Removed the camera ${c.name}.`,
    },
  ],
  label: (c) => c.name,
  empty:
    'This yard has no cameras. Register one with “New camera”: an ONVIF address and login, or a provider camera.',
};
