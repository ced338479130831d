import { randomInt } from 'node:crypto';

/**
 * Appointment codes (docs/domain.md "Appointments"): 8 characters a driver can read out and a
 * clerk type without confusion, so letters and digits that look alike are left out (0/O, 1/I/L).
 * 31 characters, 8 positions: about 8.5e11 codes, drawn at random (not guessable from another
 * booking's code); unique per yard (the booking retries on a taken one; a unique index backs it).
 */
export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const CODE_LENGTH = 8;

export function newAppointmentCode(random: (max: number) => number = randomInt): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[random(CODE_ALPHABET.length)];
  return code;
}
