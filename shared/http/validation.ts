import type { z } from 'zod';
import type { FieldError } from './errors.js';

/** zod issues -> one FieldError per bad field, with the request part in the path (body.items[2].code). */
export function zodIssuesToFieldErrors(issues: z.core.$ZodIssue[], part: string): FieldError[] {
  return issues.map((issue) => ({
    path: fieldPath(part, issue.path),
    message: issue.message,
    code: issue.code,
  }));
}

/** A field's path as errors name it: the request part, then keys and [indexes] (body.items[2].code). */
export function fieldPath(part: string, segments: readonly PropertyKey[]): string {
  return [part, ...segments.map(String)].reduce((acc, seg) =>
    /^\d+$/.test(seg) ? `${acc}[${seg}]` : `${acc}.${seg}`,
  );
}
