import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION, ROOTS, roleChoices } from '../../tools/role-choices.js';

/**
 * Edge/cloud differences are chosen once at start: shared/role-profile.ts names them, shared/app.ts
 * (with createServices and the process roots) plugs the parts that follow; everything else just
 * calls what it was given (docs/architecture.md "One codebase, two roles"). A failure names a file
 * that asks for the role, the sync mode or a relay flag again.
 */
const ROOT = join(import.meta.dirname, '../..');

/** The sync engine and the modules it serves, which take named dependencies rather than the core. */
const NAMED_DEPS = [
  'shared/sync',
  'shared/modules/attachments',
  'shared/modules/tasks',
  'shared/modules/driver-app',
  'shared/modules/hardware',
  'shared/modules/sync/blob-routes.ts',
  'shared/modules/sync/blob-fetch.ts',
  'shared/modules/sync/blob-service.ts',
  'edge/sync',
  'cloud/sync',
];

function filesUnder(path: string): Array<{ path: string; text: string }> {
  const full = join(ROOT, path);
  if (full.endsWith('.ts')) return [{ path, text: readFileSync(full, 'utf8') }];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() || entry.name.endsWith('.ts')
      ? filesUnder(relative(ROOT, join(full, entry.name)))
      : [],
  );
}

describe('edge/cloud differences are chosen once', () => {
  it('no module, shared service, sync part or adapter reads the role, the sync mode or a relay flag', () => {
    const found = roleChoices(ROOT).map((f) => `${f.path}:${f.line}: ${f.what}`);
    expect(found).toEqual([]);
  });

  it('the check finds each kind of role read (it is not blind)', () => {
    const root = mkdtempSync(join(tmpdir(), 'role-choices-'));
    try {
      for (const dir of ['shared/modules/gadgets', 'edge', 'cloud'])
        mkdirSync(join(root, dir), { recursive: true });
      writeFileSync(
        join(root, 'shared/modules/gadgets/service.ts'),
        [
          "const cloud = deps.config.role === 'cloud';",
          'const mode = syncMode(config);',
          "if (deps.sync.mode === 'linked') skip();",
          "if (mode !== 'standalone') skip();",
          'if (gates.relaysAtSites) forward();',
          "if (profile.billing === 'here') bill();",
          "if (!changes.mayWrite('yard')) refuse();",
          "if (changes.mayWrite('gadget')) await changes.insert(db, 'gadget', row);",
          "if (principal.role === 'driver') own();",
          '// config.role in a comment is fine',
        ].join('\n'),
      );
      const found = roleChoices(root, {}).map((f) => f.line);
      expect(found).toEqual([1, 1, 2, 3, 3, 4, 5, 6, 7]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('the roots and configuration files it skips exist', () => {
    for (const path of [...Object.keys(ROOTS), ...Object.keys(CONFIGURATION)]) {
      expect(() => readFileSync(join(ROOT, path)), path).not.toThrow();
    }
  });

  it('the app builds the role profile once and reads no role itself', () => {
    const app = readFileSync(join(ROOT, 'shared/app.ts'), 'utf8');
    expect(app.match(/\broleProfile\(/g)).toHaveLength(1);
    expect(app).not.toMatch(/config\.role\b|syncMode\(/);
  });

  it('they take named dependencies, not the whole core', () => {
    // createServices is where the core is taken apart; everything it builds names its parts.
    const takers = NAMED_DEPS.flatMap(filesUnder)
      .filter((f) => /import type \{ Core \} from '[./]*(shared\/)?core\.js'/.test(f.text))
      .map((f) => f.path);
    expect(takers).toEqual([]);
  });
});
