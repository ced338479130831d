import { STAFF_ROLE } from '../master/options';
import { carrierName } from '../records/lookups';
import type { Column, FieldSpec, Option } from '../records/types';

/**
 * Carrier users in the user list and form (docs/web-apps.md, the dashboard's Admin): the role
 * "Carrier user" beside the staff roles, bound to one carrier picked when it is created. Such a
 * user signs in to the carrier portal and sees only that carrier's bookings and invoices; it is the
 * cloud's (never sent to a site), and stays a carrier user of the same carrier.
 */
export const USER_ROLE: readonly Option[] = [...STAFF_ROLE, { value: 'carrier', label: 'Carrier user' }];

export const carrierField: FieldSpec = {
  name: 'carrierId',
  label: 'Carrier',
  kind: 'carrier',
  required: true,
  createOnly: true,
  hint: 'the carrier whose bookings and invoices this user sees in the carrier portal',
  shownWhen: (values) => values.role === 'carrier',
};

export const carrierColumn: Column<{ carrierId: string | null }> = {
  label: 'Carrier',
  value: (u) => (u.carrierId ? carrierName(u.carrierId) : '—'),
};
