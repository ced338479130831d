import type { z } from 'zod';

/**
 * zod's default messages in words a person reads ("Must not be empty", not "Too small: expected
 * string to have >=1 characters"): the field errors of every 400 `validation-failed`
 * (docs/api.md), which the apps show beside the field and integrators read in the /docs. A schema's
 * own message (a refine, or `.min(1, '...')`) still wins: this only replaces zod's defaults.
 */
type Issue = z.core.$ZodRawIssue;

const KIND: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'yes or no',
  array: 'a list',
  object: 'a group of fields',
  date: 'a date',
  nan: 'a number',
};

const FORMAT: Record<string, string> = {
  email: 'Must be an email address, like name@example.com.',
  url: 'Must be a web address, like https://example.com.',
  uuid: 'Must be the id of an existing record.',
  guid: 'Must be the id of an existing record.',
  datetime: 'Must be a date and time, like 2025-03-01T14:30:00Z.',
  date: 'Must be a date, like 2025-03-01.',
  time: 'Must be a time of day, like 14:30.',
  duration: 'Must be a duration, like PT30M.',
  ipv4: 'Must be an IP address.',
  ipv6: 'Must be an IP address.',
  base64: 'Must be base64 data.',
  base64url: 'Must be base64 data.',
  jwt: 'Must be a token.',
};

function count(n: number | bigint, one: string, many: string): string {
  return `${n} ${Number(n) === 1 ? one : many}`;
}

function bound(
  iss: Issue & { origin?: string; inclusive?: boolean },
  limit: number | bigint,
  small: boolean,
) {
  const origin = iss.origin ?? '';
  if (origin === 'string') {
    if (small && Number(limit) === 1) return 'Must not be empty.';
    return `Must be at ${small ? 'least' : 'most'} ${count(limit, 'character', 'characters')} long.`;
  }
  if (origin === 'array' || origin === 'set')
    return small && Number(limit) === 1
      ? 'Must have at least one entry.'
      : `Must have at ${small ? 'least' : 'most'} ${count(limit, 'entry', 'entries')}.`;
  if (origin === 'date') {
    const at = new Date(Number(limit)).toISOString();
    return small ? `Must be at or after ${at}.` : `Must be at or before ${at}.`;
  }
  if (iss.inclusive === false) return small ? `Must be more than ${limit}.` : `Must be less than ${limit}.`;
  return `Must be ${small ? 'at least' : 'at most'} ${limit}.`;
}

/** The message for one of zod's issues, or undefined to keep the schema's own (a refine's). */
export function userWords(iss: Issue): string | undefined {
  const i = iss as Issue & Record<string, unknown>;
  switch (iss.code) {
    case 'invalid_type':
      if (i.input === undefined) return 'Required.';
      return `Must be ${KIND[String(i.expected)] ?? 'a valid value'}.`;
    case 'too_small':
      return bound(i, i.minimum as number, true);
    case 'too_big':
      return bound(i, i.maximum as number, false);
    case 'invalid_format':
      if (i.format === 'regex') return 'Is not in the right form.';
      if (i.format === 'starts_with') return `Must start with ${String(i.prefix)}.`;
      if (i.format === 'ends_with') return `Must end with ${String(i.suffix)}.`;
      if (i.format === 'includes') return `Must contain ${String(i.includes)}.`;
      return FORMAT[String(i.format)] ?? 'Is not in the right form.';
    case 'invalid_value': {
      const values = (i.values as unknown[] | undefined) ?? [];
      return values.length === 1
        ? `Must be ${String(values[0])}.`
        : `Must be one of: ${values.map(String).join(', ')}.`;
    }
    case 'not_multiple_of':
      return `Must be a multiple of ${String(i.divisor)}.`;
    case 'unrecognized_keys': {
      const keys = (i.keys as string[] | undefined) ?? [];
      return `Not a field of this request: ${keys.join(', ')}.`;
    }
    case 'invalid_union':
      return 'Matches none of the accepted forms.';
    case 'invalid_key':
      return 'Has a name that is not allowed.';
    case 'invalid_element':
      return 'Has an entry that is not valid.';
    default:
      return undefined;
  }
}
