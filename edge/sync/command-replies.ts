import type { z } from 'zod';
import { AppError, BadRequestError } from '../../shared/http/errors.js';
import type { CommandResult } from '../../shared/sync/protocol.js';

// A command's arguments and its error answer, as the command handler (command-handler.ts) parses and replies.

export type Problem = NonNullable<CommandResult['error']>;

/** The command's arguments, or 400 validation-failed naming what is wrong. */
export function parseArgs<T>(schema: z.ZodType<T>, args: unknown): T {
  const parsed = schema.safeParse(args);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues
    .map((i) => `${i.path.map(String).join('.') || 'args'}: ${i.message}`)
    .join('; ');
  throw new BadRequestError('validation-failed', `The command's arguments are not valid: ${detail}`);
}

/** The problem to answer for an error: an AppError as it is, anything else a 500 without details. */
export function problemOf(err: unknown): Problem {
  if (err instanceof AppError) {
    // A rate limit's wait travels with the problem, so the cloud's client gets Retry-After too.
    const retryAfter = err.extra?.retryAfterSec;
    return {
      status: err.status,
      code: err.code,
      title: err.title,
      detail: err.detail,
      ...(typeof retryAfter === 'number' && Number.isFinite(retryAfter)
        ? { retryAfterSec: Math.max(0, Math.ceil(retryAfter)) }
        : {}),
    };
  }
  return {
    status: 500,
    code: 'internal',
    title: 'Internal error',
    detail: 'The edge failed to run the command; its log has the details.',
  };
}
