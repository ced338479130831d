/**
 * What the outbox does with the server's answer to one queued action: the one home of that rule,
 * kept apart from the queue so it can be tested on its own.
 *
 * - `applied`: 2xx whose result for the task is ok: the action is done, drop it.
 * - `conflict`: the server refused it for good (the task's own error in a 2xx batch answer, or a
 *   4xx other than 401/408/429): sending it again would not help, so the driver is told.
 * - `retry`: no answer (network error, timeout), 408, 429 or 5xx: keep it queued and try later,
 *   with the same Idempotency-Key, so an attempt that did reach the server is not applied twice.
 *   Also 409 `idempotency-key-in-flight`: an earlier attempt with this key is still running.
 * - The server keeps the final answer under the key (docs/api.md, "Idempotency-Key"), a 5xx too:
 *   a 5xx that comes back marked `Idempotent-Replayed` will never change, so it is a conflict
 *   (the driver checks the task), not a retry for ever.
 * - `login`: 401, the token expired or was revoked: keep it queued until the driver logs in again.
 */
export type Outcome =
  | { type: 'applied' }
  | { type: 'conflict'; code: string; detail: string }
  | { type: 'retry'; afterMs?: number }
  | { type: 'login' };

/** One result per task of the driver's batch routes (DriverTaskBatchResult). */
interface TaskResult {
  taskId: string;
  ok: boolean;
  error?: { status: number; code: string; detail: string };
}

export interface Answer {
  status: number;
  /** The parsed body: the batch result on 2xx, problem+json otherwise (or nothing). */
  body?: unknown;
  /** The Retry-After header, if any (seconds or an HTTP date). */
  retryAfter?: string | null;
  /** The Idempotent-Replayed header was true: this is the answer stored under the key. */
  replayed?: boolean;
}

/** The problem code of an answer's body, if it has one. */
function codeOf(body: unknown): string | undefined {
  const code = (body as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Statuses that say "not now" rather than "no": the same request may succeed later. */
function isTransient(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

export function classify(answer: Answer | 'network-error', taskId: string, now = Date.now()): Outcome {
  if (answer === 'network-error') return { type: 'retry' };
  const { status, body } = answer;
  if (status === 401) return { type: 'login' };
  const stillRunning = status === 409 && codeOf(body) === 'idempotency-key-in-flight';
  if ((isTransient(status) && !answer.replayed) || stillRunning) {
    const afterMs = retryAfterMs(answer.retryAfter, now);
    return afterMs === undefined ? { type: 'retry' } : { type: 'retry', afterMs };
  }
  if (status >= 200 && status < 300) {
    const results = (body as { results?: TaskResult[] } | undefined)?.results;
    const mine = Array.isArray(results) ? results.find((r) => r?.taskId === taskId) : undefined;
    if (!mine) {
      return {
        type: 'conflict',
        code: 'unexpected-answer',
        detail: 'The server answered without a result for this task.',
      };
    }
    if (mine.ok) return { type: 'applied' };
    return {
      type: 'conflict',
      code: mine.error?.code ?? 'refused',
      detail: mine.error?.detail ?? 'The server refused this action.',
    };
  }
  const problem = (body ?? {}) as { code?: unknown; detail?: unknown; title?: unknown };
  return {
    type: 'conflict',
    code: typeof problem.code === 'string' ? problem.code : `http-${status}`,
    detail:
      typeof problem.detail === 'string'
        ? problem.detail
        : typeof problem.title === 'string'
          ? problem.title
          : `The server refused this action (HTTP ${status}).`,
  };
}

/** Retry-After in ms (delta-seconds or an HTTP date), capped at 5 minutes; undefined if absent or bad. */
export function retryAfterMs(header: string | null | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), MAX_DELAY_MS * 5);
}

const FIRST_DELAY_MS = 2_000;
const MAX_DELAY_MS = 60_000;

/**
 * How long to wait before the next try after `failures` failed ones in a row: 2 s, 4 s, 8 s, ...
 * up to a minute, each between half and all of that (jitter, so the phones of a yard whose Wi-Fi
 * comes back do not all retry in the same instant). `random` is in [0, 1).
 */
export function backoffMs(failures: number, random: number): number {
  const ceiling = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}
