import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Links between the repository's Markdown pages (README.md, docs/, the folders' README.md files)
 * lead somewhere: the file exists and, with a `#section`, the page has that heading. Sections move
 * between pages (the README's install, cloud and billing parts live in docs/): a link left behind
 * fails here instead of dropping a reader at the top of the wrong page.
 */

const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', 'data', 'coverage', 'reports', '.stryker-tmp']);

function markdownFiles(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = dir ? `${dir}/${name}` : name;
    if (statSync(join(root, path)).isDirectory()) {
      if (!SKIPPED_DIRS.has(name)) out.push(...markdownFiles(root, path));
    } else if (name.endsWith('.md')) out.push(path);
  }
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- ]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (m) anchors.add(anchorOf(m[1]!.replace(/`/g, '')));
  }
  return anchors;
}

describe('links between the Markdown pages', () => {
  it('lead to a file that exists and a heading it has', () => {
    const root = process.cwd();
    const broken: string[] = [];
    for (const page of markdownFiles(root)) {
      const text = readFileSync(join(root, page), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue; // http:, https:, mailto:
        const [file, anchor] = target!.split('#');
        const path = file ? normalize(join(dirname(page), file)) : page;
        if (!existsSync(join(root, path))) {
          broken.push(`${page}: ${target} (no ${path})`);
          continue;
        }
        if (
          anchor &&
          path.endsWith('.md') &&
          !anchorsOf(readFileSync(join(root, path), 'utf8')).has(anchor)
        ) {
          broken.push(`${page}: ${target} (no heading #${anchor} in ${path})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('find a heading by its GitHub anchor', () => {
    expect(anchorOf('The cloud in production: PostgreSQL and several nodes')).toBe(
      'the-cloud-in-production-postgresql-and-several-nodes',
    );
    expect(anchorOf("Yard tasking: the dispatcher's and the yard driver's day")).toBe(
      'yard-tasking-the-dispatchers-and-the-yard-drivers-day',
    );
    expect(anchorOf('Apply, ack, resume')).toBe('apply-ack-resume');
  });
});
