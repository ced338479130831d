import { api, call, type Schemas } from '../../common/api/client';
import { may } from '../access';
import { ifMatch, withEtag } from '../records/http';
import { carrierName, withCarrierNames } from '../records/lookups';
import type { EntitySpec } from '../records/types';
import { labelOf, TRUCK_STATUS } from './options';

type Truck = Schemas['Truck'];

/** Trucks (tractors) by plate or unit number; retire one instead of deleting it. */
export const trucks: EntitySpec<Truck> = {
  title: 'Trucks',
  singular: 'truck',
  intro: 'Trucks by plate or unit number. A truck is never deleted: set it out of service or retired.',
  columns: [
    {
      label: 'Plate',
      value: (t) => (t.plate ? `${t.plate}${t.plateRegion ? ` (${t.plateRegion})` : ''}` : '—'),
    },
    { label: 'Unit', value: (t) => t.unitNumber ?? '—' },
    { label: 'Carrier', value: (t) => carrierName(t.carrierId) },
    { label: 'VIN', value: (t) => t.vin ?? '—' },
    { label: 'Status', value: (t) => labelOf(TRUCK_STATUS, t.status) },
    { label: 'In yard', value: (t) => (t.inYard ? 'Yes' : 'No') },
  ],
  fields: [
    { name: 'plate', label: 'Plate', hint: 'a plate or a unit number is needed', nullable: true },
    { name: 'plateRegion', label: 'Plate region', hint: 'e.g. US-IL or DE', nullable: true },
    { name: 'unitNumber', label: 'Unit number', nullable: true },
    { name: 'carrierId', label: 'Carrier', kind: 'carrier', nullable: true },
    { name: 'vin', label: 'VIN', hint: '17 characters, no I, O or Q', nullable: true },
    {
      name: 'status',
      label: 'Status',
      kind: 'select',
      options: TRUCK_STATUS,
      initial: 'active',
      required: true,
    },
  ],
  filters: [
    { name: 'status', label: 'Status', options: TRUCK_STATUS },
    {
      name: 'inYard',
      label: 'In yard',
      options: [
        { value: 'true', label: 'In a yard' },
        { value: 'false', label: 'Not in a yard' },
      ],
    },
  ],
  api: {
    list: withCarrierNames(({ cursor, filter }) =>
      call(
        api.GET('/api/truck', {
          params: {
            query: {
              cursor,
              status: filter.status as Truck['status'] | undefined,
              ...(filter.inYard ? { inYard: filter.inYard === 'true' } : {}),
            },
          },
        }),
      ),
    ),
    load: (t) => withEtag(api.GET('/api/truck/{id}', { params: { path: { id: t.id } } })),
    create: (body) => call(api.POST('/api/truck', { body: body as Schemas['TruckCreate'] })),
    update: (t, body, etag) =>
      call(
        api.PATCH('/api/truck/{id}', {
          params: { path: { id: t.id } },
          body: body as Schemas['TruckPatch'],
          headers: ifMatch(etag),
        }),
      ),
  },
  owner: 'both',
  may: { create: may.editMasterData, edit: may.editMasterData },
  label: (t) => t.plate ?? t.unitNumber ?? 'truck',
  empty: 'No trucks match. Create one with “New truck”, or clear the filters.',
};
