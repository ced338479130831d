import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { architectureDoc, collectModules, moduleOf, productFiles } from '../../../tools/module-map.js';

/**
 * docs/architecture.md's "Module map" is generated from the import graph and the folders' README.md
 * files (tools/module-map.ts). A folder added, removed or rewired without regenerating leaves the
 * map describing code that is not there: this fails until `npm run docs:map` is run and the doc
 * committed.
 */
describe('the module map in docs/architecture.md', () => {
  it('is what the code and the folder READMEs generate', async () => {
    const { current, expected } = await architectureDoc();
    if (current !== expected) {
      const a = current.split('\n');
      const b = expected.split('\n');
      const line = a.findIndex((text, i) => text !== b[i]);
      expect.fail(
        'docs/architecture.md: the module map is stale. Run `npm run docs:map` and commit the doc. ' +
          `First difference at line ${line + 1}:\n- ${a[line] ?? '(end of file)'}\n+ ${b[line] ?? '(end of file)'}`,
      );
    }
  }, 120_000);

  it('gives every module a README.md whose first line says what it is for', () => {
    const root = process.cwd();
    const missing = collectModules(root, productFiles(root), new Map())
      .filter((m) => m.purpose === null || m.purpose.length < 10)
      .map((m) => `${m.folder}/README.md`);
    expect(missing, 'folders with product code and no README.md purpose line').toEqual([]);
  });

  it('names in each folder README only files that exist', () => {
    const root = process.cwd();
    const files = productFiles(root);
    const stale: string[] = [];
    for (const m of collectModules(root, files, new Map())) {
      if (m.purpose === null) continue;
      const readme = readFileSync(`${root}/${m.folder}/README.md`, 'utf8');
      // A path from the repository root, or a file of this folder or one of its subfolders.
      for (const [, name] of readme.matchAll(/`([\w./-]+\.tsx?)`/g)) {
        const found =
          existsSync(`${root}/${name}`) ||
          existsSync(`${root}/${m.folder}/${name}`) ||
          files.some((f) => f.startsWith(`${m.folder}/`) && f.endsWith(`/${name}`));
        if (!found) stale.push(`${m.folder}/README.md: ${name}`);
      }
    }
    expect(stale, 'files a README names that are not there: update the README').toEqual([]);
  });

  it('groups a domain module or a web app with its subfolders, other folders by their second level', () => {
    expect(moduleOf('shared/modules/billing/invoice/service.ts')).toBe('shared/modules/billing');
    expect(moduleOf('shared/modules/index.ts')).toBe('shared/modules');
    expect(moduleOf('shared/ui/driver/offline/outbox.ts')).toBe('shared/ui/driver');
    expect(moduleOf('shared/db/migrations/0001-initial.ts')).toBe('shared/db');
    expect(moduleOf('shared/app.ts')).toBe('shared');
    expect(moduleOf('edge/hardware/relay-hub.ts')).toBe('edge/hardware');
    expect(moduleOf('cloud/main.ts')).toBe('cloud');
  });
});
