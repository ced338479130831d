import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Edge/cloud differences are chosen once at start (shared/app.ts builds the sync side; createServices
 * and the edge/cloud sync factories hand on what follows from it); the parts below then just call
 * what they were given. A failure names a file that asks for the role again.
 */
const ROOT = join(import.meta.dirname, '../..');

const CHOSEN_ONCE = [
  'shared/sync',
  'shared/services.ts',
  'shared/modules/attachments',
  'shared/modules/tasks',
  'shared/modules/driver-app',
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

/** Reading the configured role (or the sync mode 'cloud', which is the role) to pick behaviour. */
const ROLE_READ =
  /config\.role\b|role:\s*config\.role|sync\.mode\s*[!=]==\s*'cloud'|\brole\s*[!=]==\s*'(edge|cloud)'/;

describe('edge/cloud differences are chosen once', () => {
  it('the sync engine, the sync adapters and the modules they serve do not read the role', () => {
    const readers = CHOSEN_ONCE.flatMap(filesUnder)
      .filter((f) => ROLE_READ.test(f.text))
      .map((f) => f.path);
    expect(readers).toEqual([]);
  });

  it('the app reads it once, to build the side of sync', () => {
    const app = readFileSync(join(ROOT, 'shared/app.ts'), 'utf8');
    expect(app.match(/config\.role\b/g)).toHaveLength(1);
  });

  it('they take named dependencies, not the whole core', () => {
    // createServices is where the core is taken apart; everything it builds names its parts.
    const takers = CHOSEN_ONCE.filter((path) => path !== 'shared/services.ts')
      .flatMap(filesUnder)
      .filter((f) => /import type \{ Core \} from '[./]*(shared\/)?core\.js'/.test(f.text))
      .map((f) => f.path);
    expect(takers).toEqual([]);
  });
});
