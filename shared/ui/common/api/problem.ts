import { fieldErrorText, problemText } from './words';

/** An RFC 9457 problem+json answer of the API, as every route sends its errors. */
export interface Problem {
  status: number;
  code: string;
  title: string;
  detail?: string;
  errors?: { path: string; message: string; code?: string }[];
  [extra: string]: unknown;
}

/**
 * A failed API call, thrown by `call()`. Its message is what the user reads (words.ts: the code in
 * the user's words, or the server's detail when that already is); each field error goes on its field.
 */
export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(problemText(problem));
    this.name = 'ProblemError';
  }

  get status(): number {
    return this.problem.status;
  }

  get code(): string {
    return this.problem.code;
  }

  /**
   * Field errors keyed by the field's name in the form: the server's path without its request part
   * (`body.trailer.number` -> `trailer.number`, `query.q` -> `q`).
   */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of this.problem.errors ?? []) {
      const field = e.path.replace(/^(body|query|params|headers)\.?/, '') || '_';
      out[field] ??= fieldErrorText(e);
    }
    return out;
  }
}

/** Turns any answer body into a Problem (a proxy's HTML error page or a dropped link included). */
export function toProblem(status: number, body: unknown): Problem {
  if (body && typeof body === 'object' && 'code' in body && typeof body.code === 'string') {
    return { status, title: String((body as { title?: unknown }).title ?? body.code), ...body } as Problem;
  }
  if (status === 0) {
    return {
      status,
      code: 'network-error',
      title: 'No connection to the yard server',
      detail: 'The yard server did not answer. Check the network cable or Wi-Fi, then try again.',
    };
  }
  return { status, code: `http-${status}`, title: `The server answered ${status}`, detail: 'Try again.' };
}
