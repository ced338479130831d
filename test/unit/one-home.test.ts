import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as enums from '../../shared/enums.js';

/**
 * Guards for "one home per rule" (shared/modules/README.md): each of these rules once had copies
 * that drifted. A failure names the file that grew a copy again.
 */
const ROOT = join(import.meta.dirname, '../..');

function productFiles(): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith('.ts'))
        out.push({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') });
    }
  };
  for (const dir of ['shared', 'edge', 'cloud']) walk(join(ROOT, dir));
  return out;
}

const files = productFiles();
const SQL = /\.selectFrom\(|\.insertInto\(|\.updateTable\(|\.deleteFrom\(|\.prepare\(|\bsql`/;

describe('one home per rule', () => {
  it('settings are read only through the settings module (its registry holds the defaults)', () => {
    const readers = files.filter(
      (f) =>
        !f.path.startsWith(join('shared', 'modules', 'settings')) &&
        /selectFrom\(\s*'setting'\s*\)/.test(f.text),
    );
    expect(readers.map((f) => f.path)).toEqual([]);
  });

  it('the driver admission check lives only in the drivers service', () => {
    const copies = files.filter(
      (f) =>
        !f.path.startsWith(join('shared', 'modules', 'drivers')) &&
        /push\(\s*'license-expired'\s*\)/.test(f.text),
    );
    expect(copies.map((f) => f.path)).toEqual([]);
  });

  it('task summaries and location retention keep their SQL in their repos', () => {
    for (const path of ['shared/modules/tasks/summary.ts', 'shared/modules/driver-app/retention.ts']) {
      const file = files.find((f) => f.path === join(...path.split('/')));
      expect(file, path).toBeDefined();
      expect(SQL.test(file!.text), path).toBe(false);
    }
  });

  it('each value list of shared/enums.ts is written out nowhere else', () => {
    const lists = Object.entries(enums)
      .filter(([, v]) => Array.isArray(v))
      .map(([name, v]) => ({ name, key: [...(v as readonly string[])].sort().join('|') }));
    const copies: string[] = [];
    for (const f of files) {
      if (f.path === join('shared', 'enums.ts')) continue;
      // z.enum(['a', 'b']), `type X = 'a' | 'b'`, a property typed `'a' | 'b'`, or ['a', 'b'] as const.
      const found = [
        ...[...f.text.matchAll(/z\.enum\(\[([^\]]*)\]/g)].map((m) => m[1]!),
        ...[...f.text.matchAll(/(?:=|:|<)\s*((?:'[^']*'\s*\|\s*)+'[^']*')/g)].map((m) => m[1]!),
        ...[...f.text.matchAll(/\[((?:\s*'[^']*',?)+)\]\s*as const/g)].map((m) => m[1]!),
      ];
      for (const literal of found) {
        const key = [...literal.matchAll(/'([^']*)'/g)]
          .map((m) => m[1])
          .sort()
          .join('|');
        const list = lists.find((l) => l.key === key);
        if (list) copies.push(`${f.path}: ${list.name}`);
      }
    }
    expect(copies).toEqual([]);
  });
});
