import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The repository's reader has no issue tracker: code, comments, docs, scripts and messages cite the
 * rule (a docs/ page and section) or the test that covers it, never a tracker's number (the word
 * and a number, with or without '#', or the word and a colon in brackets) nor an item of one.
 */

// Built from pieces so that this file does not match itself.
const WORD = ['iss', 'ue'].join('');
const REFERENCE = new RegExp(`\\b${WORD}s? #?\\d+|\\(${WORD}:|\\bitems? #?\\d+\\b`, 'i');

/** What is not the repository's own text: installed, built, generated at run time, or binary. */
const SKIPPED_DIRS = new Set([
  'node_modules',
  'dist',
  '.git',
  'data',
  'coverage',
  'reports',
  '.stryker-tmp',
  'screenshots',
  'results',
  'tmp',
]);
const TEXT = /\.(ts|tsx|js|cjs|mjs|json|md|sh|conf|ya?ml|css|html|txt|service|rules)$|^[^.]+$/;
const SKIPPED_FILES = new Set(['package-lock.json']);

function textFiles(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = dir ? `${dir}/${name}` : name;
    const stat = statSync(join(root, path));
    if (stat.isDirectory()) {
      if (!SKIPPED_DIRS.has(name)) out.push(...textFiles(root, path));
    } else if (TEXT.test(name) && !SKIPPED_FILES.has(name) && stat.size < 2_000_000) out.push(path);
  }
  return out;
}

describe('references to an issue tracker', () => {
  it('appear nowhere in the repository: cite the rule (docs/...) or the test instead', () => {
    const root = process.cwd();
    const found: string[] = [];
    for (const path of textFiles(root)) {
      const lines = readFileSync(join(root, path), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (REFERENCE.test(line)) found.push(`${path}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(found, 'replace each with the docs/ section of its rule or the test that covers it').toEqual([]);
  });

  it('are recognised in the forms they took', () => {
    for (const text of [
      `(${WORD} 16)`,
      `${WORD[0]?.toUpperCase()}${WORD.slice(1)} 15 "Performance"`,
      `(${WORD}: "x")`,
      `(${['it', 'em'].join('')} 7)`,
      `${WORD} #5`,
    ]) {
      expect(REFERENCE.test(text), text).toBe(true);
    }
    for (const text of ['issued invoices', 'issueToken(kind)', 'zod issue code', '500 items']) {
      expect(REFERENCE.test(text), text).toBe(false);
    }
  });
});
