import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../../shared/ui/common/api/problem';
import { readRefusal } from '../../../shared/ui/gate/check-in/refusal';

const problem = (status: number, code: string, detail: string, extra: Record<string, unknown> = {}) =>
  new ProblemError({ status, code, title: code, detail, ...extra } as never);

describe('check-in: what the form shows when the server refuses the movement', () => {
  it('a unit still in the yard is a conflict the clerk may record anyway', () => {
    const r = readRefusal(problem(409, 'already-in-yard', 'PRFU 482113 is in the yard on S03.'), 'y1', 0, []);
    expect(r).toEqual({
      kind: 'conflict',
      detail: expect.stringContaining('PRFU 482113 is in the yard on S03.'),
    });
  });

  it('an outbound gate is said at the gate field', () => {
    const r = readRefusal(problem(409, 'gate-direction', 'South gate is an exit.'), 'y1', 0, []);
    expect(r).toEqual({
      kind: 'gate',
      message: expect.stringMatching(/South gate is an exit\..* Choose an inbound gate\.$/),
    });
  });

  it('a lapsed session says to log in again and that nothing was recorded', () => {
    const r = readRefusal(problem(401, 'unauthenticated', 'Log in.'), 'y1', 0, []);
    expect(r).toMatchObject({ kind: 'lines', recheckDriver: false });
    expect(r.kind === 'lines' && r.lines[0]).toMatch(
      /^Your session ended: log in again.*Nothing was recorded\.$/,
    );
  });

  it('a driver refused meanwhile asks the admission check again; field errors name the marked fields', () => {
    const r = readRefusal(problem(409, 'driver-not-allowed', 'The driver is blocked.'), 'y1', 0, []);
    expect(r).toMatchObject({ kind: 'lines', recheckDriver: true });
    const fields = readRefusal(problem(400, 'validation', 'Invalid.'), 'y1', 2, []);
    expect(fields).toMatchObject({ kind: 'lines', recheckDriver: false });
    expect(fields.kind === 'lines' && fields.lines[0]).toMatch(/correct the marked fields/);
  });
});
