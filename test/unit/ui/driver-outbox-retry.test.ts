import { describe, expect, it } from 'vitest';
import { backoffMs, classify, retryAfterMs } from '../../../shared/ui/driver/offline/retry';

const TASK = '01936b2f-284c-7aa3-bb5c-d6e7f8091a2b';
const OTHER = '01936b2f-284c-7aa3-bb5c-000000000000';

describe('classify: what the outbox does with an answer', () => {
  it('no answer at all (network error, timeout) keeps the action for a retry', () => {
    expect(classify('network-error', TASK)).toEqual({ type: 'retry' });
  });

  it('408, 429 and every 5xx keep it for a retry; Retry-After sets the wait', () => {
    for (const status of [408, 429, 500, 502, 503, 504, 507]) {
      expect(classify({ status }, TASK), String(status)).toEqual({ type: 'retry' });
    }
    expect(classify({ status: 503, retryAfter: '7' }, TASK)).toEqual({ type: 'retry', afterMs: 7000 });
    const now = Date.parse('2026-04-01T06:00:00Z');
    expect(classify({ status: 429, retryAfter: 'Wed, 01 Apr 2026 06:00:30 GMT' }, TASK, now)).toEqual({
      type: 'retry',
      afterMs: 30_000,
    });
  });

  it('401 waits for the next login, neither dropped nor refused', () => {
    expect(classify({ status: 401, body: { code: 'unauthenticated' } }, TASK)).toEqual({ type: 'login' });
  });

  it('2xx with the task ok is applied; the task is found by id among other results', () => {
    const body = {
      results: [
        { taskId: OTHER, ok: false, error: { status: 403, code: 'forbidden', detail: 'x' } },
        { taskId: TASK, ok: true, task: { id: TASK } },
      ],
    };
    expect(classify({ status: 200, body }, TASK)).toEqual({ type: 'applied' });
  });

  it("2xx with the task's own error is a conflict with the server's code and words", () => {
    const body = {
      results: [
        {
          taskId: TASK,
          ok: false,
          error: { status: 403, code: 'forbidden', detail: 'The task is not assigned to you.' },
        },
      ],
    };
    expect(classify({ status: 200, body }, TASK)).toEqual({
      type: 'conflict',
      code: 'forbidden',
      detail: 'The task is not assigned to you.',
    });
  });

  it('2xx without a result for the task is a conflict, never a silent success', () => {
    expect(classify({ status: 200, body: { results: [] } }, TASK)).toMatchObject({
      type: 'conflict',
      code: 'unexpected-answer',
    });
    expect(classify({ status: 200, body: undefined }, TASK)).toMatchObject({ type: 'conflict' });
  });

  it('other 4xx are conflicts carrying the problem code and detail (or the status when there is none)', () => {
    expect(
      classify(
        { status: 403, body: { code: 'forbidden', title: 'Forbidden', detail: 'Drivers only.' } },
        TASK,
      ),
    ).toEqual({ type: 'conflict', code: 'forbidden', detail: 'Drivers only.' });
    expect(classify({ status: 400, body: { code: 'validation-failed', title: 'Bad input' } }, TASK)).toEqual({
      type: 'conflict',
      code: 'validation-failed',
      detail: 'Bad input',
    });
    expect(classify({ status: 404 }, TASK)).toMatchObject({ type: 'conflict', code: 'http-404' });
  });

  it('the idempotency answers: in flight waits for its Retry-After; reused or unknown outcome is a conflict', () => {
    const inFlight = { status: 409, body: { code: 'idempotency-key-in-flight', detail: 'Still running.' } };
    expect(classify({ ...inFlight, retryAfter: '1' }, TASK)).toEqual({ type: 'retry', afterMs: 1000 });
    expect(
      classify(
        { status: 409, body: { code: 'idempotency-outcome-unknown', detail: 'May have applied.' } },
        TASK,
      ),
    ).toEqual({ type: 'conflict', code: 'idempotency-outcome-unknown', detail: 'May have applied.' });
    expect(
      classify({ status: 422, body: { code: 'idempotency-key-reused', detail: 'Other body.' } }, TASK),
    ).toMatchObject({ type: 'conflict', code: 'idempotency-key-reused' });
  });

  it('a 5xx replayed from the key is the final answer: a conflict, not a retry for ever', () => {
    const failed = { status: 500, body: { code: 'internal-error', detail: 'Try again.' } };
    expect(classify(failed, TASK)).toEqual({ type: 'retry' });
    expect(classify({ ...failed, replayed: true }, TASK)).toEqual({
      type: 'conflict',
      code: 'internal-error',
      detail: 'Try again.',
    });
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and dates, ignores junk, caps at five minutes and never goes negative', () => {
    expect(retryAfterMs('0')).toBe(0);
    expect(retryAfterMs(' 12 ')).toBe(12_000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs('99999')).toBe(300_000);
    expect(retryAfterMs('Wed, 01 Apr 2026 05:00:00 GMT', Date.parse('2026-04-01T06:00:00Z'))).toBe(0);
  });
});

describe('backoffMs', () => {
  it('doubles from 2 s up to a minute, with the jitter between half and all of it', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map((n) => backoffMs(n, 0.999999))).toEqual([
      2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000,
    ]);
    expect([1, 2, 6].map((n) => backoffMs(n, 0))).toEqual([1000, 2000, 30000]);
  });
});
