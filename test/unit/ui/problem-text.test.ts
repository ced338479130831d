import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../../shared/ui/common/api/problem';
import { problemText } from '../../../shared/ui/common/api/problem-text';

describe('problemText', () => {
  it('a cloud-owned record says where it is managed (the detail) and that it is read-only here', () => {
    const err = new ProblemError({
      status: 409,
      code: 'cloud-owned',
      title: 'Cloud-owned',
      detail: 'Carriers are managed in the cloud dashboard.',
    });
    expect(problemText(err)).toBe(
      'Carriers are managed in the cloud dashboard. Change it there; this site shows it read-only.',
    );
  });

  it('other problems give their detail; anything else asks to try again', () => {
    expect(problemText(new ProblemError({ status: 409, code: 'x', title: 'X', detail: 'Do this.' }))).toBe(
      'Do this.',
    );
    expect(problemText(new Error('boom'))).toBe('Something went wrong. Try again.');
  });
});
