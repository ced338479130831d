import type { ExpressionBuilder } from 'kysely';
import type { DB } from './tables.js';

/** Small SQL pieces the module repos share (a module never imports another module's repo). */

/** `%value%` for LIKE ... ESCAPE '\' with the wildcards in value escaped. */
export function likeContains(value: string): string {
  return `%${escapeLike(value)}%`;
}

export function escapeLike(value: string): string {
  return value.replace(/[%_\\]/g, (c) => `\\${c}`);
}

/** Units (trucks, trailers) outside any yard, or in one of `yardIds`. */
export function unitInScope<T extends 'truck' | 'trailer'>(yardIds: string[]) {
  return (eb: ExpressionBuilder<DB, T>) => {
    const ref = eb.ref('yardId' as never);
    return yardIds.length === 0
      ? eb(ref, 'is', null)
      : eb.or([eb(ref, 'is', null), eb(ref, 'in', yardIds as never)]);
  };
}
