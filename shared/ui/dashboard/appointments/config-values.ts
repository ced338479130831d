/**
 * The scheduling config form as plain data (docs/domain.md "Appointments": the config record):
 * what the API sends becomes what the office edits, and back. Pure functions, unit-tested in
 * test/unit/ui/appointment-config-values.test.ts; the bounds themselves are the server's (its field
 * errors land on the fields), the hints only say them in words.
 */

export const WEEKDAYS = [
  { key: '1', label: 'Monday' },
  { key: '2', label: 'Tuesday' },
  { key: '3', label: 'Wednesday' },
  { key: '4', label: 'Thursday' },
  { key: '5', label: 'Friday' },
  { key: '6', label: 'Saturday' },
  { key: '7', label: 'Sunday' },
] as const;

export type Weekday = (typeof WEEKDAYS)[number]['key'];

export interface Span {
  from: string;
  to: string;
}

/** The config as the API reads and writes it (SchedulingConfig / SchedulingConfigPut). */
export interface ConfigBody {
  enabled: boolean;
  openHours: Partial<Record<Weekday, Span[]>>;
  closedDates: string[];
  slotMinutes: number;
  leadTimeMinMinutes: number;
  leadTimeMaxDays: number;
  changeCutoffMinutes: number;
  lateGraceMinutes: number;
  noShowAfterMinutes: number;
  freeTimeMinutes: number;
}

export type NumberField = Exclude<keyof ConfigBody, 'enabled' | 'openHours' | 'closedDates'>;

/** The numbers, in the order the form shows them, each with its bounds said in words. */
export const NUMBER_FIELDS: { name: NumberField; label: string; hint: string }[] = [
  {
    name: 'slotMinutes',
    label: 'Slot length (minutes)',
    hint: 'Start times lie on this grid from midnight. 5 to 60; default 15.',
  },
  {
    name: 'leadTimeMinMinutes',
    label: 'Book at least (minutes ahead)',
    hint: 'How long before the start a booking must be made. 0 to 43200 (30 days); default 120.',
  },
  {
    name: 'leadTimeMaxDays',
    label: 'Book at most (days ahead)',
    hint: 'Calendar days after today that can be booked. 0 to 366; default 30.',
  },
  {
    name: 'changeCutoffMinutes',
    label: 'Carrier changes until (minutes before start)',
    hint: 'Carriers change or cancel only before this. 0 to 43200; default 240.',
  },
  {
    name: 'lateGraceMinutes',
    label: 'Late after (minutes)',
    hint: 'An arrival this long around the start is on time. 0 to 1440; default 15.',
  },
  {
    name: 'noShowAfterMinutes',
    label: 'No-show after (minutes)',
    hint: 'Not arrived this long after the start: a no-show. At least the late time; 0 to 1440; default 60.',
  },
  {
    name: 'freeTimeMinutes',
    label: 'Free time (minutes)',
    hint: 'Detention counts after this. 0 to 2880 (two days); default 120.',
  },
];

/** What the form holds: numbers as typed text, spans as the time inputs show them. */
export interface ConfigForm {
  enabled: boolean;
  hours: Record<Weekday, Span[]>;
  closedDates: string[];
  numbers: Record<NumberField, string>;
}

/**
 * A span's end "24:00" is midnight at the end of the day; a time input cannot show it, so the form
 * shows 00:00 there and an end of 00:00 is sent back as 24:00 (a span cannot end where its day began).
 */
const endIn = (to: string) => (to === '24:00' ? '00:00' : to);
const endOut = (to: string) => (to === '00:00' ? '24:00' : to);

export function toForm(c: ConfigBody): ConfigForm {
  const hours = {} as Record<Weekday, Span[]>;
  for (const d of WEEKDAYS) hours[d.key] = (c.openHours[d.key] ?? []).map((s) => ({ ...s, to: endIn(s.to) }));
  const numbers = {} as Record<NumberField, string>;
  for (const f of NUMBER_FIELDS) numbers[f.name] = String(c[f.name]);
  return { enabled: c.enabled, hours, closedDates: [...c.closedDates].sort(), numbers };
}

export type FormErrors = Record<string, string>;

/**
 * The form as the PUT body, or the errors that keep it from being sent, keyed as the server keys
 * its own (`slotMinutes`, `openHours.1.0.from`), so both land on the same field.
 */
export function toBody(f: ConfigForm): { body: ConfigBody; errors: FormErrors } {
  const errors: FormErrors = {};
  const openHours: ConfigBody['openHours'] = {};
  for (const d of WEEKDAYS) {
    const spans = f.hours[d.key];
    if (!spans.length) continue;
    openHours[d.key] = spans.map((s, i) => {
      const at = `openHours.${d.key}.${i}`;
      if (!/^\d\d:\d\d$/.test(s.from)) errors[`${at}.from`] = 'Type the opening time.';
      if (!/^\d\d:\d\d$/.test(s.to)) errors[`${at}.to`] = 'Type the closing time.';
      else if (s.to !== '00:00' && s.to <= s.from) {
        errors[`${at}.to`] = 'Closes before it opens: end after the start, or 00:00 for midnight.';
      }
      return { from: s.from, to: endOut(s.to) };
    });
  }
  const body = { enabled: f.enabled, openHours, closedDates: [...f.closedDates].sort() } as ConfigBody;
  for (const n of NUMBER_FIELDS) {
    const text = f.numbers[n.name].trim();
    if (/^\d+$/.test(text)) body[n.name] = Number(text);
    else errors[n.name] = 'Type a whole number of minutes or days, e.g. 15.';
  }
  return { body, errors };
}

/** A day's hours in words: "06:00–12:00, 13:00–22:00", "Closed". */
export function spansText(spans: Span[] | undefined): string {
  if (!spans?.length) return 'Closed';
  return spans.map((s) => `${s.from}–${s.to}`).join(', ');
}

/** Monday's spans copied to Tuesday to Friday (the usual working week). */
export function copyMondayToWeekdays(hours: Record<Weekday, Span[]>): Record<Weekday, Span[]> {
  const monday = hours['1'];
  const next = { ...hours };
  for (const d of ['2', '3', '4', '5'] as const) next[d] = monday.map((s) => ({ ...s }));
  return next;
}

/** A closed date added once, the list kept in date order. */
export function addClosedDate(dates: string[], date: string): string[] {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || dates.includes(date)) return dates;
  return [...dates, date].sort();
}

/** The form's keys a server error can land on (the rest is said above the form). */
export function formKeys(f: ConfigForm): Set<string> {
  const keys = new Set<string>(['enabled', 'closedDates', ...NUMBER_FIELDS.map((n) => n.name)]);
  for (const d of WEEKDAYS) {
    keys.add(`openHours.${d.key}`);
    f.hours[d.key].forEach((_, i) => {
      keys.add(`openHours.${d.key}.${i}`);
      keys.add(`openHours.${d.key}.${i}.from`);
      keys.add(`openHours.${d.key}.${i}.to`);
    });
  }
  return keys;
}

/**
 * The server's field errors on the form's keys: the path itself, else its shorter prefixes
 * ("closedDates.3" -> "closedDates", "openHours.1.0.x" -> "openHours.1.0", the span); what fits none is returned
 * in `rest` with its path, so an error is never dropped.
 */
export function placeErrors(
  fieldErrors: Record<string, string>,
  keys: Set<string>,
): { placed: FormErrors; rest: string[] } {
  const placed: FormErrors = {};
  const rest: string[] = [];
  for (const [path, message] of Object.entries(fieldErrors)) {
    const parts = path.split('.');
    let key: string | undefined;
    for (let n = parts.length; n > 0 && !key; n--) {
      const prefix = parts.slice(0, n).join('.');
      if (keys.has(prefix)) key = prefix;
    }
    if (key) placed[key] ??= message;
    else rest.push(message);
  }
  return { placed, rest };
}
