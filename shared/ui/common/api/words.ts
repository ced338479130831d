// .js: the server's tests read this file too, under the server's (node16) module resolution.
import { FIELD_WORDS } from './field-words.js';
import { DETAIL_FIRST, PROBLEM_WORDS, type Problem } from './problem-words.js';

export { fieldLabel } from './field-words.js';
export { PROBLEM_WORDS } from './problem-words.js';

/**
 * The one home of what the apps say when the API refuses (UI.md: every error shows what to do, in
 * the user's words; labels, not field names; no ids, no HTTP verbs, no codes). A problem's `code`
 * is stable (docs/api.md), so each code the server can answer has its text (problem-words.ts; the
 * fields' labels and error words in field-words.ts); the server's
 * `detail` is shown instead only when it is already in the user's words (it often names the trailer
 * or the gate). test/unit/ui-problem-words.test.ts walks every code the server source names.
 */

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const VERB = /\b(GET|PUT|POST|PATCH|DELETE|HEAD|HTTP)\b/;
/** camelCase identifiers (licenseNumber), snake_case (yard_id), dotted paths (body.trailer). */
const IDENTIFIER =
  /\b[a-z]+[A-Z][A-Za-z]*\b|\b[a-z]+_[a-z_]+\b|\b[A-Z]+_[A-Z_]+\b|\b(body|query|params|headers)\.\w/;
/** zod's own wording, request plumbing and JSON fragments. */
const PLUMBING =
  /\bexpected\b|\bforce\b|\bIf-Match\b|\bETag\b|Idempotency-Key|Retry-After|Content-Type|Content-Encoding|[{}`=<>]|:\s*true\b|\bnull\b|\bundefined\b|\bNaN\b|>=|<=/i;

/** Whether a text can be shown to a user as it is: none of the developer's words above, no code. */
export function isUserWorded(text: string): boolean {
  if (!text.trim()) return false;
  if (UUID.test(text) || VERB.test(text) || IDENTIFIER.test(text) || PLUMBING.test(text)) return false;
  // A problem code as a word of its own (site-catching-up, already-in-yard): a code, not a sentence.
  for (const code of Object.keys(PROBLEM_WORDS)) {
    if (code.includes('-') && new RegExp(`(^|[^\\w-])${code}($|[^\\w-])`).test(text)) return false;
  }
  return true;
}

function byStatus(status: number): string {
  if (status >= 500)
    return 'Something went wrong on the server. Try again; tell an admin if it keeps happening.';
  if (status === 404) return PROBLEM_WORDS['not-found'] as string;
  if (status === 403) return PROBLEM_WORDS.forbidden as string;
  if (status === 409)
    return 'This could not be done: the record changed or is in another state. Reload and try again.';
  return 'This could not be done. Check what you entered and try again.';
}

/** What to tell the user about a refused request: the detail when it is user-worded, else the code's text. */
export function problemText(p: Pick<Problem, 'status' | 'code'> & Partial<Problem>): string {
  const detail = typeof p.detail === 'string' ? p.detail.trim() : '';
  const words = PROBLEM_WORDS[p.code];
  if (p.code.startsWith('http-')) return byStatus(p.status);
  if (words === undefined) return detail && isUserWorded(detail) ? detail : byStatus(p.status);
  if (detail && DETAIL_FIRST.has(p.code) && isUserWorded(detail)) return detail;
  return typeof words === 'function' ? words(p as Problem) : words;
}

/** A field error to show beside its field: the server's message when user-worded, else by its code. */
export function fieldErrorText(e: { path: string; message: string; code?: string | undefined }): string {
  if (isUserWorded(e.message)) return e.message;
  return (e.code && FIELD_WORDS[e.code]) || 'This value is not valid.';
}
