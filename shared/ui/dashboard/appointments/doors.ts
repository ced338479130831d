import { api, call, type Schemas } from '../../common/api/client';
import { may } from '../access';
import { chosenYardId } from '../records/chosen-yard';
import { fromList, ifMatch } from '../records/http';
import type { EntitySpec } from '../records/types';
import { yard } from '../scope';

type Location = Schemas['Location'];

const count = new Intl.NumberFormat();

/**
 * Door capacity: how many appointments a door takes at once (docs/domain.md "Appointments": a door
 * location's `capacity`, default 1). The same location record as under Master data, Locations;
 * here only its doors, and only the capacity is changed.
 */
export const doorCapacity: EntitySpec<Location> = {
  title: 'Door capacity',
  singular: 'door',
  intro: () =>
    `The doors of ${yard.value?.name ?? 'the chosen yard'}: capacity is how many appointments a door takes at the same time (and how many trailers it holds). New doors are made under Master data, Locations.`,
  columns: [
    { label: 'Door', value: (l) => l.name },
    { label: 'Capacity', value: (l) => count.format(l.capacity) },
    { label: 'Status', value: (l) => (l.status === 'active' ? 'Active' : 'Inactive: not booked') },
  ],
  fields: [
    {
      name: 'capacity',
      label: 'Capacity',
      kind: 'number',
      required: true,
      hint: 'Appointments at the same time at this door: 1 or more.',
    },
  ],
  search: { label: 'Door name' },
  api: {
    list: ({ q, cursor }) =>
      call(
        api.GET('/api/yard/{id}/location', {
          params: { path: { id: chosenYardId() }, query: { kind: 'door', q, cursor } },
        }),
      ),
    load: async (l) => fromList(l),
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
  may: { create: () => false, edit: may.editLocations },
  label: (l) => l.name,
  empty: 'This yard has no doors that match. Add doors under Master data, Locations (kind Door).',
};
