import { api, call, type Schemas } from '../../common/api/client';
import { may } from '../access';
import { ifMatch, withEtag } from '../records/http';
import { carrierName, withCarrierNames } from '../records/lookups';
import type { EntitySpec } from '../records/types';
import { DRIVER_KIND, labelOf, PARTY_STATUS } from './options';

type Driver = Schemas['Driver'];

/**
 * Carrier drivers (checked at the gate) and yard drivers (the driver app). Written at the cloud and
 * at a site alike; at a linked site the server refuses codes, PINs and blocks (managed in the cloud).
 */
export const drivers: EntitySpec<Driver> = {
  title: 'Drivers',
  singular: 'driver',
  intro:
    'Carrier drivers are checked at the gate; yard drivers sign in on the driver app with a code and PIN.',
  columns: [
    { label: 'Name', value: (d) => `${d.lastName}, ${d.firstName}` },
    { label: 'Kind', value: (d) => labelOf(DRIVER_KIND, d.kind) },
    { label: 'Carrier', value: (d) => carrierName(d.carrierId) },
    {
      label: 'Licence',
      value: (d) => (d.licenseNumber ? `${d.licenseNumber} (${d.licenseRegion ?? '?'})` : '—'),
    },
    { label: 'Phone', value: (d) => d.phone ?? '—' },
    {
      label: 'Status',
      value: (d) => (d.status === 'blocked' ? `Blocked: ${d.blockedReason ?? 'no reason given'}` : 'Active'),
    },
  ],
  fields: [
    { name: 'kind', label: 'Kind', kind: 'select', options: DRIVER_KIND, initial: 'carrier', required: true },
    {
      name: 'carrierId',
      label: 'Carrier',
      kind: 'carrier',
      hint: 'required for carrier drivers',
      nullable: true,
    },
    { name: 'firstName', label: 'First name', required: true },
    { name: 'lastName', label: 'Last name', required: true },
    { name: 'phone', label: 'Phone', hint: 'E.164, e.g. +13125550123', nullable: true },
    { name: 'licenseNumber', label: 'Licence number', nullable: true },
    { name: 'licenseRegion', label: 'Licence region', hint: 'e.g. US-IL or DE', nullable: true },
    { name: 'licenseExpiresOn', label: 'Licence expires on', kind: 'date', nullable: true },
    {
      name: 'status',
      label: 'Status',
      kind: 'select',
      options: PARTY_STATUS,
      initial: 'active',
      required: true,
    },
    { name: 'blockedReason', label: 'Why blocked', nullable: true },
    {
      name: 'driverCode',
      label: 'Driver code',
      hint: 'yard drivers: the code they sign in with',
      nullable: true,
    },
    {
      name: 'pin',
      label: 'New PIN',
      kind: 'password',
      hint: 'yard drivers: 4 to 8 digits; leave empty to keep',
    },
    { name: 'notes', label: 'Notes', kind: 'textarea', nullable: true },
  ],
  search: { label: 'Name, phone or licence' },
  filters: [
    { name: 'kind', label: 'Kind', options: DRIVER_KIND },
    { name: 'status', label: 'Status', options: PARTY_STATUS },
  ],
  api: {
    list: withCarrierNames(({ q, cursor, filter }) =>
      call(
        api.GET('/api/driver', {
          params: {
            query: {
              q,
              cursor,
              kind: filter.kind as Driver['kind'] | undefined,
              status: filter.status as Driver['status'] | undefined,
            },
          },
        }),
      ),
    ),
    load: (d) => withEtag(api.GET('/api/driver/{id}', { params: { path: { id: d.id } } })),
    create: (body) => call(api.POST('/api/driver', { body: body as Schemas['DriverCreate'] })),
    update: (d, body, etag) =>
      call(
        api.PATCH('/api/driver/{id}', {
          params: { path: { id: d.id } },
          body: body as Schemas['DriverPatch'],
          headers: ifMatch(etag),
        }),
      ),
  },
  owner: 'both',
  may: { create: may.editMasterData, edit: may.editMasterData },
  actions: [
    {
      label: 'Block',
      danger: true,
      confirm: (d) => `Block driver ${d.firstName} ${d.lastName}? The gate refuses a blocked driver.`,
      fields: [{ name: 'reason', label: 'Reason', hint: 'shown at the gate' }],
      run: ({ record, etag }, body) =>
        call(
          api.DELETE('/api/driver/{id}', {
            params: { path: { id: record.id }, query: { reason: body.reason as string | undefined } },
            headers: ifMatch(etag),
          }),
        ),
      shown: (d) => d.status !== 'blocked',
      may: may.editMasterData,
      done: (d) => `Blocked driver ${d.firstName} ${d.lastName}.`,
    },
  ],
  label: (d) => `${d.firstName} ${d.lastName}`,
  empty: 'No drivers match. Create one with “New driver”, or clear the search and filters.',
};
