import { describe, expect, it } from 'vitest';
import { CODE_ALPHABET, newAppointmentCode } from '../../../shared/modules/appointments/codes.js';

/** Appointment codes (docs/domain.md "Appointments"): 8 characters, none that look alike. */
describe('appointment codes', () => {
  it('uses 31 characters without 0, O, 1, I or L', () => {
    expect(CODE_ALPHABET).toHaveLength(31);
    expect(new Set(CODE_ALPHABET).size).toBe(31);
    for (const c of '0O1IL') expect(CODE_ALPHABET).not.toContain(c);
  });

  it('draws 8 characters, each from the whole alphabet', () => {
    const draws: number[] = [];
    const code = newAppointmentCode((max) => {
      draws.push(max);
      return (draws.length * 7) % max;
    });
    expect(code).toHaveLength(8);
    expect(draws).toEqual(Array(8).fill(31));
    expect(newAppointmentCode(() => 0)).toBe('AAAAAAAA');
    expect(newAppointmentCode(() => 30)).toBe('99999999');
    expect(newAppointmentCode()).toMatch(/^[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{8}$/);
  });
});
