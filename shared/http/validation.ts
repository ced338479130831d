import type { z } from 'zod';
import type { FieldError } from './errors.js';

/** zod issues -> one FieldError per bad field, with the request part in the path (body.items[2].code). */
export function zodIssuesToFieldErrors(issues: z.core.$ZodIssue[], part: string): FieldError[] {
  return issues.map((issue) => ({
    path: [part, ...issue.path.map(String)].reduce((acc, seg) =>
      /^\d+$/.test(seg) ? `${acc}[${seg}]` : `${acc}.${seg}`,
    ),
    message: issue.message,
    code: issue.code,
  }));
}
