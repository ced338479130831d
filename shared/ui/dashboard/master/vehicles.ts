import { api, call, type Schemas } from '../../common/api/client';
import { may } from '../access';
import { ifMatch, withEtag } from '../records/http';
import { carrierName, withCarrierNames } from '../records/lookups';
import type { EntitySpec, ListQuery, Page, RecordApi } from '../records/types';
import { LOAD_STATUS, labelOf, TRAILER_TYPE, TRUCK_STATUS } from './options';
import { dwellOf, spotOf, withSpotNames, yardOf } from './trailer-places';

type Trailer = Schemas['Trailer'];
type Truck = Schemas['Truck'];
export type VehicleKind = 'trailer' | 'truck';

/**
 * The records API of a trailer or a truck: the same routes under /api/trailer and /api/truck (list
 * with `inYard`, GET by id with its ETag, POST, PATCH with If-Match). The client's types are per
 * path, so the kind's paths are named once here and the bodies checked by the API.
 */
function vehicleRecords<T extends Trailer | Truck>(
  kind: VehicleKind,
  /** The kind's own list query: its search and filters (beside cursor and inYard). */
  query: (q: ListQuery) => Record<string, unknown>,
): RecordApi<T> {
  const list = `/api/${kind}` as '/api/trailer';
  const one = `/api/${kind}/{id}` as '/api/trailer/{id}';
  return {
    list: (q: ListQuery) =>
      call(
        api.GET(list, {
          params: {
            query: {
              ...query(q),
              cursor: q.cursor,
              ...(q.filter.inYard ? { inYard: q.filter.inYard === 'true' } : {}),
            } as never,
          },
        }),
      ) as Promise<Page<T>>,
    load: (t) => withEtag(api.GET(one, { params: { path: { id: t.id } } })) as never,
    create: (body) => call(api.POST(list, { body: body as never })) as Promise<T>,
    update: (t, body, etag) =>
      call(
        api.PATCH(one, { params: { path: { id: t.id } }, body: body as never, headers: ifMatch(etag) }),
      ) as Promise<T>,
  };
}

const IN_YARD = {
  name: 'inYard',
  label: 'In yard',
  options: [
    { value: 'true', label: 'In a yard' },
    { value: 'false', label: 'Not in a yard' },
  ],
};

const trailerRecords = vehicleRecords<Trailer>('trailer', ({ q, filter }) => ({
  q,
  loadStatus: filter.loadStatus,
}));

/** Trailers; gate check-ins create unknown ones, the office fills them in. Never deleted. */
const trailer: EntitySpec<Trailer> = {
  title: 'Trailers',
  singular: 'trailer',
  intro:
    'Trailers known before they arrive; a gate check-in adds unknown ones. Where a trailer stands is set at the gate and by yard moves.',
  columns: [
    { label: 'Number', value: (t) => t.number },
    { label: 'Carrier', value: (t) => carrierName(t.carrierId) },
    {
      label: 'Type',
      value: (t) => `${labelOf(TRAILER_TYPE, t.type)}${t.lengthFt ? `, ${t.lengthFt} ft` : ''}`,
    },
    { label: 'Load', value: (t) => labelOf(LOAD_STATUS, t.loadStatus) },
    { label: 'Seal', value: (t) => t.sealNumber ?? '—' },
    { label: 'In yard', value: yardOf },
    { label: 'Spot', value: spotOf },
    { label: 'Dwell', value: (t) => dwellOf(t) },
  ],
  fields: [
    { name: 'number', label: 'Trailer number', required: true, hint: 'unique per carrier' },
    { name: 'carrierId', label: 'Carrier', kind: 'carrier', nullable: true },
    {
      name: 'type',
      label: 'Type',
      kind: 'select',
      options: TRAILER_TYPE,
      initial: 'dry_van',
      required: true,
    },
    { name: 'lengthFt', label: 'Length (ft)', kind: 'number', hint: '10 to 65', nullable: true },
    { name: 'plate', label: 'Plate', nullable: true },
    { name: 'plateRegion', label: 'Plate region', hint: 'e.g. US-IL or DE', nullable: true },
    {
      name: 'loadStatus',
      label: 'Load',
      kind: 'select',
      options: LOAD_STATUS,
      initial: 'unknown',
      required: true,
    },
    { name: 'sealNumber', label: 'Seal number', nullable: true },
    { name: 'notes', label: 'Notes', kind: 'textarea', nullable: true },
  ],
  search: { label: 'Number or plate' },
  filters: [{ name: 'loadStatus', label: 'Load', options: LOAD_STATUS }, IN_YARD],
  api: { ...trailerRecords, list: withSpotNames(withCarrierNames(trailerRecords.list)) },
  owner: 'both',
  // PATCH is A D G, POST A G: of the dashboard's roles admins create, admins and dispatchers edit.
  may: { create: may.editMasterData, edit: (role) => role === 'admin' || role === 'dispatcher' },
  label: (t) => t.number,
  empty: 'No trailers match. Create one with “New trailer”, or clear the search and filters.',
};

// The truck list takes no search text (the page has no search box): only its filters.
const truckRecords = vehicleRecords<Truck>('truck', ({ filter }) => ({ status: filter.status }));

/** Trucks (tractors) by plate or unit number; retire one instead of deleting it. */
const truck: EntitySpec<Truck> = {
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
  filters: [{ name: 'status', label: 'Status', options: TRUCK_STATUS }, IN_YARD],
  api: { ...truckRecords, list: withCarrierNames(truckRecords.list) },
  owner: 'both',
  may: { create: may.editMasterData, edit: may.editMasterData },
  label: (t) => t.plate ?? t.unitNumber ?? 'truck',
  empty: 'No trucks match. Create one with “New truck”, or clear the filters.',
};

/** The master-data page of each vehicle kind: one list, form and API shape, parameterised by kind. */
export const vehicles: { trailer: EntitySpec<Trailer>; truck: EntitySpec<Truck> } = { trailer, truck };
