/** The problems of the Idempotency-Key header (idempotency.ts), each with its stable code. */
import { AppError, BadRequestError } from './errors.js';

export class InvalidIdempotencyKeyError extends BadRequestError {
  constructor(detail: string) {
    super('invalid-idempotency-key', detail);
  }
}

export class IdempotencyKeyReusedError extends AppError {
  constructor() {
    super(
      422,
      'idempotency-key-reused',
      'Idempotency key reused',
      'This Idempotency-Key was already used for another request (another body, path or query). ' +
        'Give each action its own key.',
    );
  }
}

export class IdempotencyKeyInFlightError extends AppError {
  constructor(retryAfterSec: number) {
    super(
      409,
      'idempotency-key-in-flight',
      'Conflict',
      'A request with this Idempotency-Key is still being processed. Send it again in a moment to get its answer.',
      undefined,
      { retryAfterSec },
    );
  }
}

export class IdempotencyOutcomeUnknownError extends AppError {
  constructor() {
    super(
      409,
      'idempotency-outcome-unknown',
      'Conflict',
      'The server stopped while it was processing the request with this Idempotency-Key, so it may or may ' +
        'not have been applied; it is not run again. Reload the records it concerns and decide, with a new key.',
    );
  }
}

export class IdempotencyKeysExhaustedError extends AppError {
  constructor(retryAfterSec: number) {
    super(
      429,
      'too-many-idempotency-keys',
      'Too many requests',
      `This account holds as many Idempotency-Keys as it may keep (setting idempotency.maxKeysPerCaller). ` +
        `Send this request again in ${retryAfterSec} s, when the oldest key has expired; nothing of it was applied.`,
      undefined,
      { retryAfterSec },
    );
  }
}
