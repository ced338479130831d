import { describe, expect, it } from 'vitest';
import {
  addClosedDate,
  type ConfigBody,
  copyMondayToWeekdays,
  formKeys,
  placeErrors,
  spansText,
  toBody,
  toForm,
} from '../../../shared/ui/dashboard/appointments/config-values';
import { doorsText } from '../../../shared/ui/dashboard/appointments/load-type-words';

const config: ConfigBody = {
  enabled: true,
  openHours: {
    '1': [
      { from: '06:00', to: '12:00' },
      { from: '13:00', to: '24:00' },
    ],
    '2': [{ from: '00:00', to: '06:00' }],
  },
  closedDates: ['2026-12-31', '2026-12-25'],
  slotMinutes: 15,
  leadTimeMinMinutes: 120,
  leadTimeMaxDays: 30,
  changeCutoffMinutes: 240,
  lateGraceMinutes: 15,
  noShowAfterMinutes: 60,
  freeTimeMinutes: 120,
};

describe('scheduling config form <-> the API body (docs/domain.md "Appointments")', () => {
  it('shows midnight at the end of a day as 00:00 (a time input cannot hold 24:00) and sends it back as 24:00', () => {
    const form = toForm(config);
    expect(form.hours['1']).toEqual([
      { from: '06:00', to: '12:00' },
      { from: '13:00', to: '00:00' },
    ]);
    // A span starting at midnight keeps its 00:00 start.
    expect(form.hours['2']).toEqual([{ from: '00:00', to: '06:00' }]);
    const { body, errors } = toBody(form);
    expect(errors).toEqual({});
    expect(body).toEqual({ ...config, closedDates: ['2026-12-25', '2026-12-31'] });
  });

  it('leaves a day without spans out (closed) and numbers as whole numbers', () => {
    const form = toForm(config);
    form.hours['1'] = [];
    form.numbers.slotMinutes = ' 30 ';
    const { body } = toBody(form);
    expect(body.openHours).toEqual({ '2': [{ from: '00:00', to: '06:00' }] });
    expect(body.slotMinutes).toBe(30);
  });

  it('refuses what cannot be sent, keyed as the server keys its field errors', () => {
    const form = toForm(config);
    form.hours['1'] = [
      { from: '', to: '12:00' },
      { from: '14:00', to: '13:00' },
    ];
    form.numbers.noShowAfterMinutes = '1.5';
    form.numbers.freeTimeMinutes = '';
    const { errors } = toBody(form);
    expect(errors).toEqual({
      'openHours.1.0.from': 'Type the opening time.',
      'openHours.1.1.to': 'Closes before it opens: end after the start, or 00:00 for midnight.',
      noShowAfterMinutes: 'Type a whole number of minutes or days, e.g. 15.',
      freeTimeMinutes: 'Type a whole number of minutes or days, e.g. 15.',
    });
  });

  it('places the server’s field errors on the field or its nearest prefix, and keeps the rest', () => {
    const form = toForm(config);
    const { placed, rest } = placeErrors(
      {
        noShowAfterMinutes: 'must be at least the late time',
        'openHours.1.1.to': 'must be a time of day, HH:MM',
        'openHours.2.0': 'An opening span must end after it starts.',
        'openHours.2.7.from': 'no such span',
        'closedDates.1': 'not a date',
        somethingElse: 'unknown',
      },
      formKeys(form),
    );
    expect(placed).toEqual({
      noShowAfterMinutes: 'must be at least the late time',
      'openHours.1.1.to': 'must be a time of day, HH:MM',
      'openHours.2.0': 'An opening span must end after it starts.',
      'openHours.2': 'no such span',
      closedDates: 'not a date',
    });
    expect(rest).toEqual(['unknown']);
  });

  it('says a day’s hours in words and copies Monday to the working week', () => {
    expect(spansText(config.openHours['1'])).toBe('06:00–12:00, 13:00–24:00');
    expect(spansText(undefined)).toBe('Closed');
    const copied = copyMondayToWeekdays(toForm(config).hours);
    expect(copied['5']).toEqual(copied['1']);
    expect(copied['6']).toEqual([]);
    copied['5'][0]!.from = '07:00';
    expect(copied['1'][0]!.from).toBe('06:00'); // copies, not the same objects
  });

  it('adds a closed date once, in date order', () => {
    expect(addClosedDate(['2026-12-31'], '2026-12-25')).toEqual(['2026-12-25', '2026-12-31']);
    expect(addClosedDate(['2026-12-25'], '2026-12-25')).toEqual(['2026-12-25']);
    expect(addClosedDate(['2026-12-25'], '')).toEqual(['2026-12-25']);
  });
});

describe('a load type’s allowed doors in words', () => {
  const doors = [
    { id: 'd2', name: 'Door 2' },
    { id: 'd10', name: 'Door 10' },
  ];
  it('names them in door order; none means every door; a removed door is counted', () => {
    expect(doorsText([], doors)).toBe('Every door');
    expect(doorsText(['d10', 'd2'], doors)).toBe('Door 2, Door 10');
    expect(doorsText(['d10', 'gone'], doors)).toBe('Door 10, 1 removed door');
  });
});
