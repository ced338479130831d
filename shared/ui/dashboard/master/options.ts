import type { Option } from '../records/types';

/** Choices of the API's enums, in words (values as the API spells them). */
const opts = (pairs: [string, string][]): Option[] => pairs.map(([value, label]) => ({ value, label }));

export const PARTY_STATUS = opts([
  ['active', 'Active'],
  ['blocked', 'Blocked'],
]);
export const ACTIVE_STATUS = opts([
  ['active', 'Active'],
  ['inactive', 'Inactive'],
]);
export const DRIVER_KIND = opts([
  ['carrier', 'Carrier driver'],
  ['yard', 'Yard driver'],
]);
export const TRUCK_STATUS = opts([
  ['active', 'Active'],
  ['out_of_service', 'Out of service'],
  ['retired', 'Retired'],
]);
export const TRAILER_TYPE = opts([
  ['dry_van', 'Dry van'],
  ['reefer', 'Reefer'],
  ['flatbed', 'Flatbed'],
  ['container', 'Container'],
  ['chassis', 'Chassis'],
  ['tanker', 'Tanker'],
  ['other', 'Other'],
]);
export const LOAD_STATUS = opts([
  ['empty', 'Empty'],
  ['loaded', 'Loaded'],
  ['unknown', 'Unknown'],
]);
export const LOCATION_KIND = opts([
  ['spot', 'Spot'],
  ['door', 'Door'],
  ['zone', 'Zone'],
  ['staging', 'Staging'],
]);
export const GATE_DIRECTION = opts([
  ['in', 'In'],
  ['out', 'Out'],
  ['both', 'Both'],
]);
export const RELAY_DRIVER = opts([
  ['simulated', 'Simulated'],
  ['gpio', 'GPIO (sysfs)'],
  ['gpiod', 'GPIO (gpiod)'],
  ['serial-lcus', 'Serial: LCUS'],
  ['serial-numato', 'Serial: Numato'],
  ['serial-kmtronic', 'Serial: KMTronic'],
  ['serial-modbus', 'Serial: Modbus'],
]);
export const STAFF_ROLE = opts([
  ['admin', 'Admin'],
  ['dispatcher', 'Dispatcher'],
  ['gate', 'Gate clerk'],
  ['billing', 'Billing'],
  ['viewer', 'Viewer'],
]);

export function labelOf(options: readonly Option[], value: string | null | undefined): string {
  return options.find((o) => o.value === value)?.label ?? value ?? '—';
}
