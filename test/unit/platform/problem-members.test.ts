import express from 'express';
import { describe, expect, it } from 'vitest';
import { errorHandler } from '../../../shared/http/error-handler.js';
import {
  AppError,
  ConflictError,
  InvalidTransitionError,
  PROBLEM_MEMBERS,
  PreconditionFailedError,
  RateLimitedError,
} from '../../../shared/http/errors.js';
import { silentLogger } from '../../../shared/log.js';

/**
 * A problem's own details may not reuse the members every problem body has (RFC 9457's type,
 * title, status, detail, instance; our code, requestId, errors): docs/api.md "Errors". The 409
 * `invoice-exists` once sent the invoice's status as `status`, telling clients the HTTP status was
 * "issued".
 */
describe('problem members', () => {
  it.each([...PROBLEM_MEMBERS])('an error whose details name %s is refused where it is made', (name) => {
    expect(() => new ConflictError('invoice-exists', 'exists', { [name]: 'issued' })).toThrow(
      new RegExp(`problem invoice-exists reuses the problem member\\(s\\) ${name}`),
    );
    expect(() => new AppError(409, 'x', 'Conflict', 'd', undefined, { [name]: 1, other: 2 })).toThrow(
      TypeError,
    );
  });

  it('the errors with details of their own use names of their own', () => {
    expect(new InvalidTransitionError('QUEUED', 'COMPLETED').extra).toEqual({
      from: 'QUEUED',
      to: 'COMPLETED',
    });
    expect(new PreconditionFailedError(3).extra).toEqual({ currentVersion: 3 });
    expect(new RateLimitedError(5).extra).toEqual({ retryAfterSec: 5 });
    expect(new ConflictError('invoice-exists', 'd', { invoiceStatus: 'issued' }).extra).toEqual({
      invoiceStatus: 'issued',
    });
  });

  it('the handler writes the problem members after the details, so a detail can never replace them', async () => {
    const app = express();
    app.get('/x', (_req, _res, next) => {
      const err = new ConflictError('invoice-exists', 'Invoice A-1 (issued) already exists.', {
        invoiceStatus: 'issued',
      });
      // Even a detail slipped in after construction does not replace the HTTP status.
      (err.extra as Record<string, unknown>).status = 'issued';
      next(err);
    });
    app.use(errorHandler(silentLogger()));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const port = (server.address() as { port: number }).port;
      const res = await fetch(`http://127.0.0.1:${port}/x`);
      expect(res.status).toBe(409);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        status: 409,
        code: 'invoice-exists',
        type: 'urn:yard:problem:invoice-exists',
        title: 'Conflict',
        instance: '/x',
        invoiceStatus: 'issued',
      });
    } finally {
      server.close();
    }
  });
});
