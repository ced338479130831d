import { api, call, type Schemas } from '../../common/api/client';
import { may } from '../access';
import { ifMatch, withEtag } from '../records/http';
import { carrierName, withCarrierNames } from '../records/lookups';
import type { EntitySpec } from '../records/types';
import { LOAD_STATUS, labelOf, TRAILER_TYPE } from './options';
import { dwellOf, spotOf, withSpotNames, yardOf } from './trailer-places';

type Trailer = Schemas['Trailer'];

/** Trailers; gate check-ins create unknown ones, the office fills them in. Never deleted. */
export const trailers: EntitySpec<Trailer> = {
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
  filters: [
    { name: 'loadStatus', label: 'Load', options: LOAD_STATUS },
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
    list: withSpotNames(
      withCarrierNames(({ q, cursor, filter }) =>
        call(
          api.GET('/api/trailer', {
            params: {
              query: {
                q,
                cursor,
                loadStatus: filter.loadStatus as Trailer['loadStatus'] | undefined,
                ...(filter.inYard ? { inYard: filter.inYard === 'true' } : {}),
              },
            },
          }),
        ),
      ),
    ),
    load: (t) => withEtag(api.GET('/api/trailer/{id}', { params: { path: { id: t.id } } })),
    create: (body) => call(api.POST('/api/trailer', { body: body as Schemas['TrailerCreate'] })),
    update: (t, body, etag) =>
      call(
        api.PATCH('/api/trailer/{id}', {
          params: { path: { id: t.id } },
          body: body as Schemas['TrailerPatch'],
          headers: ifMatch(etag),
        }),
      ),
  },
  owner: 'both',
  // PATCH is A D G, POST A G: of the dashboard's roles admins create, admins and dispatchers edit.
  may: { create: may.editMasterData, edit: (role) => role === 'admin' || role === 'dispatcher' },
  label: (t) => t.number,
  empty: 'No trailers match. Create one with “New trailer”, or clear the search and filters.',
};
