import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../../shared/ui/common/api/problem';
import {
  fieldErrorText,
  fieldLabel,
  isUserWorded,
  PROBLEM_WORDS,
  problemText,
} from '../../../shared/ui/common/api/words';
import { initForm, withServerErrors } from '../../../shared/ui/common/form-state';

/**
 * Every problem code the server can answer (found in its source, as the error classes and their
 * callers name them) has a text in the apps' words (common/api/words.ts), and whatever the server's
 * detail says, what the apps show has no code, no id, no HTTP verb, no field name and none of zod's
 * wording (UI.md: messages a user can see speak the user's words).
 */
function serverCodes(): Set<string> {
  // The server's sources as text (Vite's glob, as vitest runs it), the apps' own left out.
  const sources = import.meta.glob(
    ['../../../shared/**/*.ts', '../../../cloud/**/*.ts', '../../../edge/**/*.ts', '!../../../shared/ui/**'],
    { query: '?raw', import: 'default', eager: true },
  ) as Record<string, string>;
  const patterns = [
    /new (?:AppError|ConflictError|BadRequestError)\(\s*(?:\d+,\s*)?['"`]([a-z][a-z0-9-]+)['"`]/g,
    /super\(\s*\d+,\s*['"]([a-z][a-z0-9-]+)['"]/g,
  ];
  const codes = new Set<string>();
  for (const text of Object.values(sources)) {
    for (const re of patterns) for (const m of text.matchAll(re)) codes.add(m[1] as string);
  }
  return codes;
}

const UUID = '01a222a7-5b1c-4d3e-8f90-123456789abc';
/** A detail as a developer writes it: the code, an id, a verb, a field name, force. */
const devDetail = (code: string) =>
  `${code}: trailer already in yard ${UUID}. Send force: true, or replace the draft (PUT); licenseNumber expected string.`;

/** What must never reach a user, besides the rules of isUserWorded itself. */
function assertUserWorded(text: string, code: string) {
  expect(text, code).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/i);
  expect(text, code).not.toMatch(/\b(PUT|POST|PATCH|DELETE|GET)\b/);
  expect(text, code).not.toMatch(/\b[a-z]+[A-Z]\w*\b/);
  expect(text, code).not.toMatch(/expected|Too small|Too big|Invalid input|force/i);
  if (code.includes('-')) expect(text, code).not.toContain(code);
  expect(isUserWorded(text), `${code}: ${text}`).toBe(true);
}

describe('problem words', () => {
  const codes = serverCodes();

  it('finds the server’s codes (the walk below covers them all)', () => {
    expect(codes.size).toBeGreaterThan(60);
    for (const known of [
      'already-in-yard',
      'invoice-exists',
      'validation-failed',
      'site-not-synced',
      'rate-limited',
    ])
      expect(codes).toContain(known);
  });

  it('every code the server can answer has a user text', () => {
    const missing = [...codes].filter((c) => !(c in PROBLEM_WORDS));
    expect(missing).toEqual([]);
  });

  it('what is shown for each code is user-worded, whatever the detail says', () => {
    for (const code of [...codes, 'network-error', 'http-502']) {
      for (const detail of [undefined, devDetail(code), `${code}`]) {
        const status = code === 'http-502' ? 502 : 409;
        const shown = new ProblemError({ status, code, title: code, ...(detail ? { detail } : {}) }).message;
        assertUserWorded(shown, code);
      }
    }
  });

  it('a user-worded detail is kept where it is the more specific text', () => {
    const p = { status: 409, code: 'already-in-yard', title: 'Conflict', unit: 'trailer' };
    expect(problemText({ ...p, detail: 'Trailer LSLG5300 is already in this yard.' })).toBe(
      'Trailer LSLG5300 is already in this yard.',
    );
    expect(
      problemText({ ...p, detail: `Trailer LSLG5300 is already in yard ${UUID}. Send force: true.` }),
    ).toBe(
      'This trailer is already in a yard (checked in, not checked out). Check it out first, or record this check-in anyway.',
    );
    expect(
      problemText({
        status: 409,
        code: 'driver-not-allowed',
        title: 'Conflict',
        detail:
          'The driver check refuses this driver: driver-blocked. Send override {reason} to admit anyway.',
        reasons: ['driver-blocked', 'license-expired'],
      }),
    ).toBe('The driver check refuses this driver: the driver is blocked, the licence has expired');
    expect(problemText({ status: 429, code: 'rate-limited', title: 'x', retryAfterSec: 12 })).toBe(
      'Too many tries in a short time. Try again in 12 s.',
    );
  });

  it('the review’s examples are never shown as they were', () => {
    for (const [code, detail] of [
      ['already-in-yard', `Trailer X is already in yard ${UUID}. Send force: true to record anyway.`],
      [
        'invoice-exists',
        'Invoice 1 (draft) already exists for this yard, carrier and period: replace the draft (PUT) or void the issued one first.',
      ],
      [
        'site-not-synced',
        'Site dal1 of yard DAL1 has not synced past the end of 2025-01 (site-catching-up): Wait for it, or send force: true.',
      ],
    ] as const) {
      assertUserWorded(new ProblemError({ status: 409, code, title: 'Conflict', detail }).message, code);
    }
  });
});

describe('field errors', () => {
  it('zod’s default wording and field names become words, each on its field', () => {
    const err = new ProblemError({
      status: 400,
      code: 'validation-failed',
      title: 'Validation failed',
      detail: 'The request is not valid; see errors for each field.',
      errors: [
        {
          path: 'body.trailer.number',
          message: 'Too small: expected string to have >=1 characters',
          code: 'too_small',
        },
        {
          path: 'query.licenseRegion',
          message: 'licenseNumber and licenseRegion go together',
          code: 'custom',
        },
        {
          path: 'body.loadStatus',
          message: 'Invalid option: expected one of "loaded"|"empty"',
          code: 'invalid_value',
        },
        { path: 'body.sealNumber', message: 'Must be at most 40 characters long.', code: 'too_big' },
      ],
    });
    const fields = err.fieldErrors();
    expect(fields).toEqual({
      'trailer.number': 'Fill this in (it is shorter or smaller than allowed).',
      licenseRegion: 'This is not valid.',
      loadStatus: 'Choose one of the offered values.',
      sealNumber: 'Must be at most 40 characters long.',
    });
    for (const [path, text] of Object.entries(fields)) assertUserWorded(text, path);
    assertUserWorded(err.message, 'validation-failed');
  });

  it('an error that fits no field is shown with the field’s label, not its name', () => {
    const placed = withServerErrors(initForm({ firstName: '' }), {
      licenseRegion: 'Give the licence region with the licence number (or neither).',
      'trailer.sealNumber': 'Must not be empty.',
      yardId: 'There is no such yard.',
    });
    expect(placed.unplaced).toEqual([
      'Licence region: Give the licence region with the licence number (or neither).',
      'Seal number: Must not be empty.',
      'Yard: There is no such yard.',
    ]);
  });

  it('labels: known ones, else the name’s own words', () => {
    expect(fieldLabel('body.licenseNumber')).toBe('Licence number');
    expect(fieldLabel('body.contact.email')).toBe('Contact email');
    expect(fieldLabel('body.items[2].unitPrice')).toBe('Items unit price');
    expect(fieldLabel('body')).toBe('This form');
  });

  it('field codes the server sets have words of their own', () => {
    for (const code of [
      'unknown-yard',
      'visit-inverted',
      'secret-required',
      'unknown-setting',
      'outside-session',
    ])
      assertUserWorded(fieldErrorText({ path: 'body.x', message: `x ${code} ${UUID}`, code }), code);
  });
});
