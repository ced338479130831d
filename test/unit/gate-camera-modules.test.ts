import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The hardware, movements, cameras and integrations modules name what they use (XDeps types built
 * in shared/services.ts), read no other module's repo, leave the edge/cloud choice to createServices
 * (the ONVIF reach, the command to a site) and keep their files small. A failure names the file.
 */
const ROOT = join(import.meta.dirname, '../..');
const MODULES = ['hardware', 'movements', 'cameras', 'integrations'];

const files = MODULES.flatMap((m) =>
  readdirSync(join(ROOT, 'shared/modules', m))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => {
      const path = `shared/modules/${m}/${f}`;
      return { module: m, path, text: readFileSync(join(ROOT, path), 'utf8') };
    }),
);

describe('hardware, movements, cameras and integrations', () => {
  it('take named dependencies, not the whole core', () => {
    expect(files.filter((f) => /import type \{ Core \} from/.test(f.text)).map((f) => f.path)).toEqual([]);
  });

  it('do not read the role', () => {
    expect(files.filter((f) => /config\.role\b|\brole\s*[!=]==/.test(f.text)).map((f) => f.path)).toEqual([]);
  });

  it("read no other module's repo, directly or through its service", () => {
    const reachers = files.filter((f) => {
      const foreignRepo = [...f.text.matchAll(/from '\.\.\/([\w-]+)\/repo\.js'/g)].some(
        (m) => m[1] !== f.module,
      );
      return foreignRepo || /\b(services\.\w+|hardware|integrations|cameras)\.repo\b/.test(f.text);
    });
    expect(reachers.map((f) => f.path)).toEqual([]);
  });

  it('keep each file under 300 lines', () => {
    const long = files.filter((f) => f.text.split('\n').length > 300).map((f) => f.path);
    expect(long).toEqual([]);
  });

  it('shared/cameras (the protocol clients) imports no module', () => {
    const dir = join(ROOT, 'shared/cameras');
    const importers = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /from '(\.\.\/)+modules\//.test(readFileSync(join(dir, f), 'utf8')));
    expect(importers).toEqual([]);
  });
});
