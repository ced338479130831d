/**
 * The words of form fields: their labels (from the server's path of a field error) and what a field
 * error's code means when its message is not in the user's words (words.ts fieldErrorText).
 */

/** Labels of the fields the apps send, where the plain words of the name are not the label. */
const LABELS: Record<string, string> = {
  licenseNumber: 'Licence number',
  licenseRegion: 'Licence region',
  scac: 'SCAC',
  pin: 'PIN',
  driverCode: 'Driver code',
  carrierId: 'Carrier',
  driverId: 'Driver',
  trailerId: 'Trailer',
  truckId: 'Truck',
  yardId: 'Yard',
  gateId: 'Gate',
  locationId: 'Spot or door',
  fromLocationId: 'From',
  toLocationId: 'To',
  sealNumber: 'Seal number',
  loadStatus: 'Load status',
  dueAt: 'Due',
  at: 'Time',
  q: 'Search',
  refType: 'Attached to',
  refId: 'Attached to',
};

/**
 * A field's label from the server's path (body.trailer.number -> "Trailer number",
 * query.licenseRegion -> "Licence region"): a known label, else the name's own words.
 */
export function fieldLabel(path: string): string {
  const parts = path
    .replace(/^(body|query|params|headers)\.?/, '')
    .replace(/\[\d+\]/g, '')
    .split('.')
    .filter(Boolean);
  if (parts.length === 0) return 'This form';
  const last = parts[parts.length - 1] as string;
  if (LABELS[last]) return LABELS[last];
  const words = parts
    .slice(-2)
    .flatMap((p) => p.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[\s_-]+/))
    .map((w) => w.toLowerCase())
    .filter((w, i, all) => w !== 'id' && w !== all[i - 1]);
  const text = words.join(' ') || 'This field';
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A field error's code (zod's issue code or the server's own) in words, when its message is not. */
export const FIELD_WORDS: Record<string, string> = {
  invalid_type: 'Fill this in with a valid value.',
  too_small: 'Fill this in (it is shorter or smaller than allowed).',
  too_big: 'Shorten this, or enter a smaller value.',
  invalid_format: 'This is not in the right format.',
  invalid_value: 'Choose one of the offered values.',
  not_multiple_of: 'This is not a valid amount.',
  unrecognized_keys: 'The form sent something it should not. Reload the page.',
  invalid_union: 'This is not a valid value.',
  invalid_key: 'This is not a valid value.',
  invalid_element: 'One of the values is not valid.',
  custom: 'This is not valid.',
  'unknown-yard': 'There is no such yard.',
  'visit-inverted': 'The end comes before the start. Swap them.',
  'secret-required': 'Enter the password or key for this connection.',
  'unknown-setting': 'There is no such setting.',
  'outside-session': 'This falls outside the driver’s shift.',
  'address-refused': 'This address may not be used (it points inside this network).',
};
