import { api, call, type Schemas } from '../../common/api/client';
import { may } from '../access';
import { ifMatch, withEtag } from '../records/http';
import { loadCarriers } from '../records/lookups';
import type { EntitySpec } from '../records/types';
import { PARTY_STATUS } from './options';

type Carrier = Schemas['Carrier'];

/** Trucking companies: a blocked carrier's units are refused at the gate. Owned by the cloud. */
export const carriers: EntitySpec<Carrier> = {
  title: 'Carriers',
  singular: 'carrier',
  intro: 'Trucking companies. A blocked carrier’s trucks and trailers are refused at the gate.',
  columns: [
    { label: 'Name', value: (c) => c.name },
    { label: 'SCAC', value: (c) => c.scac ?? '—' },
    { label: 'USDOT', value: (c) => c.usdot ?? '—' },
    {
      label: 'Status',
      value: (c) => (c.status === 'blocked' ? `Blocked: ${c.blockedReason ?? 'no reason given'}` : 'Active'),
    },
    {
      label: 'Contact',
      value: (c) => [c.contact?.name, c.contact?.phone, c.contact?.email].filter(Boolean).join(', ') || '—',
    },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'scac', label: 'SCAC', hint: '2 to 4 letters, e.g. PRFL', nullable: true },
    { name: 'usdot', label: 'USDOT number', hint: 'up to 8 digits', nullable: true },
    {
      name: 'status',
      label: 'Status',
      kind: 'select',
      options: PARTY_STATUS,
      initial: 'active',
      required: true,
    },
    { name: 'blockedReason', label: 'Why blocked', hint: 'shown at the gate when blocked', nullable: true },
    { name: 'contact.name', label: 'Contact name' },
    { name: 'contact.phone', label: 'Contact phone' },
    { name: 'contact.email', label: 'Contact email' },
  ],
  search: { label: 'Name or SCAC' },
  filters: [{ name: 'status', label: 'Status', options: PARTY_STATUS }],
  api: {
    list: ({ q, cursor, filter }) =>
      call(
        api.GET('/api/carrier', {
          params: { query: { q, cursor, status: filter.status as Carrier['status'] | undefined } },
        }),
      ),
    load: (c) => withEtag(api.GET('/api/carrier/{id}', { params: { path: { id: c.id } } })),
    create: async (body) => {
      const created = await call(api.POST('/api/carrier', { body: body as Schemas['CarrierCreate'] }));
      loadCarriers(true);
      return created;
    },
    update: async (c, body, etag) => {
      const saved = await call(
        api.PATCH('/api/carrier/{id}', {
          params: { path: { id: c.id } },
          body: body as Schemas['CarrierPatch'],
          headers: ifMatch(etag),
        }),
      );
      loadCarriers(true);
      return saved;
    },
  },
  owner: 'cloud',
  may: { create: may.editMasterData, edit: may.editMasterData },
  actions: [
    {
      label: 'Delete',
      danger: true,
      confirm: (c) =>
        `Delete carrier ${c.name}? Only a carrier nothing refers to can be deleted; block it otherwise.`,
      run: ({ record }) => call(api.DELETE('/api/carrier/{id}', { params: { path: { id: record.id } } })),
      may: may.editMasterData,
      done: (c) => `Deleted carrier ${c.name}.`,
    },
  ],
  label: (c) => c.name,
  empty: 'No carriers match. Create one with “New carrier”, or clear the search.',
};
