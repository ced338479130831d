import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  assertCanSeeYard,
  canSeeYard,
  type Principal,
  scopeInList,
  visibleOr404,
  yardFilter,
} from '../../shared/auth/principal.js';
import { AppError } from '../../shared/http/errors.js';

const scoped: Principal = { kind: 'user', id: 'u1', name: 'Ann', role: 'gate', yardIds: ['y1'] };
const everyYard: Principal = { ...scoped, yardIds: null };

function problem(fn: () => unknown): { status: number; code: string; detail: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return { status: e.status, code: e.code, detail: e.message };
    throw e;
  }
  throw new Error('expected an AppError');
}

describe('yard scope: one rule in shared/auth/principal.ts', () => {
  it('a named yard outside the scope is 403 forbidden with one message; inside or unscoped passes', () => {
    expect(problem(() => assertCanSeeYard(scoped, 'y2'))).toEqual({
      status: 403,
      code: 'forbidden',
      detail: 'Yard y2 is outside your yard scope.',
    });
    expect(problem(() => assertCanSeeYard(scoped, 'y2', 'tasks[1]')).detail).toBe(
      'tasks[1]: Yard y2 is outside your yard scope.',
    );
    expect(() => assertCanSeeYard(scoped, 'y1')).not.toThrow();
    expect(() => assertCanSeeYard(everyYard, 'y2')).not.toThrow();
  });

  it('a record by id in a yard outside the scope answers 404 like a missing one', () => {
    const row = { id: 'm1', yardId: 'y2' };
    expect(problem(() => visibleOr404(scoped, row, 'Movement', 'm1'))).toMatchObject({
      status: 404,
      code: 'not-found',
    });
    expect(problem(() => visibleOr404(scoped, undefined, 'Movement', 'm1'))).toMatchObject({ status: 404 });
    expect(visibleOr404(everyYard, row, 'Movement', 'm1')).toBe(row);
    // A record without a yard is visible only to a principal without a scope (as canSeeYard(p, null)).
    expect(canSeeYard(scoped, null)).toBe(false);
    expect(canSeeYard(everyYard, null)).toBe(true);
  });

  it('a list filter is the asked yard (403 outside the scope) or else the principal scope', () => {
    expect(yardFilter(scoped, 'y1')).toEqual(['y1']);
    expect(yardFilter(scoped, undefined)).toEqual(['y1']);
    expect(yardFilter(everyYard, undefined)).toBeNull();
    expect(problem(() => yardFilter(scoped, 'y2')).status).toBe(403);
  });

  it('an empty scope as a SQL IN list matches no yard', () => {
    expect(scopeInList([])).toEqual(['']);
    expect(scopeInList(['y1', 'y2'])).toEqual(['y1', 'y2']);
  });

  it('no module repeats the check: no yardIds.includes or own scope message outside principal.ts', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (path.endsWith('.ts') && !path.endsWith(join('auth', 'principal.ts'))) {
          const text = readFileSync(path, 'utf8');
          if (
            /yardIds\.includes\(/.test(text) ||
            /length > 0 \? [\w.]+ : \[''\]/.test(text) ||
            /new ForbiddenError\(\s*[`'"][^`'"]*(outside your (yard )?scope|does not include this|may not see yard)/.test(
              text,
            )
          )
            offenders.push(path);
        }
      }
    };
    walk(join(import.meta.dirname, '../../shared'));
    expect(offenders).toEqual([]);
  });
});
