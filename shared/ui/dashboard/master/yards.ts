import { api, call, type Schemas } from '../../common/api/client';
import { may } from '../access';
import { ifMatch, withEtag } from '../records/http';
import type { EntitySpec } from '../records/types';
import { loadScope } from '../scope';
import { ACTIVE_STATUS, labelOf } from './options';

type Yard = Schemas['Yard'];

/** After a yard is saved the yard picker and time zones follow. */
async function refreshScope<T>(saved: T): Promise<T> {
  await loadScope().catch(() => undefined);
  return saved;
}

/** The organisation's yards, each served by one site's edge. Owned by the cloud. */
export const yardsSpec: EntitySpec<Yard> = {
  title: 'Yards',
  singular: 'yard',
  intro: 'Each yard has a unique code and a time zone that sets its local days (reports, billing).',
  columns: [
    { label: 'Code', value: (y) => y.code },
    { label: 'Name', value: (y) => y.name },
    { label: 'Time zone', value: (y) => y.timeZone },
    {
      label: 'Capacity',
      value: (y) => (y.capacity === null ? '—' : new Intl.NumberFormat().format(y.capacity)),
    },
    { label: 'Site', value: (y) => y.siteId },
    { label: 'Status', value: (y) => labelOf(ACTIVE_STATUS, y.status) },
  ],
  fields: [
    { name: 'code', label: 'Code', required: true, hint: '2 to 16 letters, digits or -' },
    { name: 'name', label: 'Name', required: true },
    { name: 'timeZone', label: 'Time zone', required: true, hint: 'IANA name, e.g. America/Chicago' },
    { name: 'capacity', label: 'Capacity (trailer spaces)', kind: 'number', nullable: true },
    {
      name: 'status',
      label: 'Status',
      kind: 'select',
      options: ACTIVE_STATUS,
      initial: 'active',
      required: true,
    },
    {
      name: 'siteId',
      label: 'Site',
      createOnly: true,
      hint: 'the edge site serving the yard; empty: this site',
    },
    { name: 'address.line1', label: 'Address' },
    { name: 'address.city', label: 'City' },
    { name: 'address.region', label: 'Region' },
    { name: 'address.postalCode', label: 'Postal code' },
    { name: 'address.country', label: 'Country', hint: 'two letters, e.g. US' },
  ],
  search: { label: 'Code or name' },
  filters: [{ name: 'status', label: 'Status', options: ACTIVE_STATUS }],
  api: {
    list: ({ q, cursor, filter }) =>
      call(
        api.GET('/api/yard', {
          params: { query: { q, cursor, status: filter.status as Yard['status'] | undefined } },
        }),
      ),
    load: (y) => withEtag(api.GET('/api/yard/{id}', { params: { path: { id: y.id } } })),
    create: async (body) =>
      refreshScope(await call(api.POST('/api/yard', { body: body as Schemas['YardCreate'] }))),
    update: async (y, body, etag) =>
      refreshScope(
        await call(
          api.PATCH('/api/yard/{id}', {
            params: { path: { id: y.id } },
            body: body as Schemas['YardPatch'],
            headers: ifMatch(etag),
          }),
        ),
      ),
  },
  owner: 'cloud',
  may: { create: may.editMasterData, edit: may.editMasterData },
  actions: [
    {
      label: 'Delete',
      danger: true,
      confirm: (y) =>
        `Delete yard ${y.name} (${y.code})? Only a yard nothing refers to can be deleted; set it inactive otherwise.`,
      run: ({ record }) => call(api.DELETE('/api/yard/{id}', { params: { path: { id: record.id } } })),
      may: may.editMasterData,
      done: (y) => `Deleted yard ${y.name}.`,
    },
  ],
  label: (y) => `${y.name} (${y.code})`,
  empty: 'No yards match. Create one with “New yard”, or clear the search.',
};
