import { api, call, type Schemas } from '../../common/api/client';
import { may } from '../access';
import { chosenYardId } from '../records/chosen-yard';
import { fromList, ifMatch } from '../records/http';
import type { EntitySpec } from '../records/types';
import { yard } from '../scope';
import { ACTIVE_STATUS, LOCATION_KIND, labelOf } from './options';

type Location = Schemas['Location'];

/** Spots, doors, zones and staging areas of the chosen yard. Dispatchers may edit them. */
export const locations: EntitySpec<Location> = {
  title: 'Locations',
  singular: 'location',
  intro: () =>
    `Spots, doors, zones and staging areas of ${yard.value?.name ?? 'the chosen yard'}; capacity is how many trailers each holds.`,
  columns: [
    { label: 'Name', value: (l) => l.name },
    { label: 'Kind', value: (l) => labelOf(LOCATION_KIND, l.kind) },
    { label: 'Capacity', value: (l) => new Intl.NumberFormat().format(l.capacity) },
    { label: 'Status', value: (l) => labelOf(ACTIVE_STATUS, l.status) },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true, hint: 'unique in the yard' },
    { name: 'kind', label: 'Kind', kind: 'select', options: LOCATION_KIND, initial: 'spot', required: true },
    { name: 'capacity', label: 'Capacity', kind: 'number', hint: 'trailers it holds; empty: 1' },
    {
      name: 'status',
      label: 'Status',
      kind: 'select',
      options: ACTIVE_STATUS,
      initial: 'active',
      required: true,
    },
  ],
  search: { label: 'Name' },
  filters: [
    { name: 'kind', label: 'Kind', options: LOCATION_KIND },
    { name: 'status', label: 'Status', options: ACTIVE_STATUS },
  ],
  api: {
    list: ({ q, cursor, filter }) =>
      call(
        api.GET('/api/yard/{id}/location', {
          params: {
            path: { id: chosenYardId() },
            query: {
              q,
              cursor,
              kind: filter.kind as Location['kind'] | undefined,
              status: filter.status as Location['status'] | undefined,
            },
          },
        }),
      ),
    // No GET of one location: the list's row is the version edited.
    load: async (l) => fromList(l),
    create: (body) =>
      call(
        api.POST('/api/yard/{id}/location', {
          params: { path: { id: chosenYardId() } },
          body: body as Schemas['LocationCreate'],
        }),
      ),
    update: (l, body, etag) =>
      call(
        api.PATCH('/api/yard/{id}/location/{locationId}', {
          params: { path: { id: l.yardId, locationId: l.id } },
          body: body as Schemas['LocationPatch'],
          headers: ifMatch(etag),
        }),
      ),
  },
  owner: 'cloud',
  may: { create: may.editLocations, edit: may.editLocations },
  actions: [
    {
      label: 'Delete',
      danger: true,
      confirm: (l) =>
        `Delete location ${l.name}? A location in use cannot be deleted; set it inactive instead.`,
      run: ({ record }) =>
        call(
          api.DELETE('/api/yard/{id}/location/{locationId}', {
            params: { path: { id: record.yardId, locationId: record.id } },
          }),
        ),
      may: may.editLocations,
      done: (l) => `Deleted location ${l.name}.`,
    },
  ],
  label: (l) => l.name,
  empty:
    'This yard has no locations that match. Create one with “New location”, or clear the search and filters.',
};
