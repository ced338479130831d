import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../../shared/ui/common/api/problem';
import { fromList, ifMatch, isStale, problemText } from '../../../shared/ui/dashboard/records/http';

const problem = (status: number, code: string, detail: string) =>
  new ProblemError({ status, code, title: code, detail });

describe('record problems in words', () => {
  it('a stale version says someone else changed it and to reload', () => {
    const err = problem(412, 'precondition-failed', 'The record changed since it was read.');
    expect(isStale(err)).toBe(true);
    expect(problemText(err, 'carrier')).toBe(
      'Someone else changed this carrier since you opened it. Reload to see their change, then make yours again.',
    );
  });

  it('a record of the cloud, refused at a linked site, says to change it in the cloud', () => {
    const text = problemText(problem(409, 'cloud-owned', 'Carriers are managed in the cloud.'));
    expect(text).toContain('Carriers are managed in the cloud.');
    expect(text).toContain('Managed in the cloud: change it there.');
  });

  it('a refused role says so and whom to ask', () => {
    expect(problemText(problem(403, 'forbidden', 'Your role may not do this.'))).toContain('ask an admin');
  });

  it("other problems keep the server's words; a non-problem gets a generic sentence", () => {
    expect(problemText(problem(409, 'in-use', 'Trailers refer to this carrier: block it instead.'))).toBe(
      'Trailers refer to this carrier: block it instead.',
    );
    expect(problemText(new Error('boom'))).toBe('Something went wrong. Try again.');
  });

  it('If-Match carries the version read; none is sent without one', () => {
    expect(fromList({ id: 'u1', version: 3 }).etag).toBe('"v3"');
    expect(ifMatch('"v3"')).toEqual({ 'If-Match': '"v3"' });
    expect(ifMatch(undefined)).toEqual({});
  });
});
