import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cloudNodeId } from '../../../cloud/sync/index.js';
import type { CoreParts } from '../../../shared/core-parts.js';
import { openDatabase } from '../../../shared/db/database.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'yard-node-id-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A cloud node on the shared PostgreSQL database: only its data directory is its own. */
const postgresNode = (dataDir: string) =>
  ({ db: { dialect: 'postgres' }, config: { dataDir } }) as unknown as Pick<CoreParts, 'db' | 'config'>;

describe('cloud node id', () => {
  it('PostgreSQL: each node keeps its own id in its data directory, the same after a restart', () => {
    const a = tempDir();
    const b = tempDir();
    const idA = cloudNodeId(postgresNode(a));
    expect(idA).toMatch(/^[0-9a-f]{12}$/);
    expect(cloudNodeId(postgresNode(a))).toBe(idA);
    expect(readFileSync(join(a, 'cloud-node-id'), 'utf8').trim()).toBe(idA);
    expect(cloudNodeId(postgresNode(b))).not.toBe(idA);
  });

  it('PostgreSQL: a damaged id file is refused, not replaced silently', () => {
    const a = tempDir();
    writeFileSync(join(a, 'cloud-node-id'), 'not an id\n');
    expect(() => cloudNodeId(postgresNode(a))).toThrow(/cloud node id/);
  });

  it('SQLite: the id is kept in the database', () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'y.db'));
    try {
      const id = cloudNodeId({ db, config: { dataDir: dir } } as unknown as Pick<CoreParts, 'db' | 'config'>);
      expect(db.sqlite.prepare("SELECT value FROM sync_meta WHERE name = 'node'").pluck().get()).toBe(id);
      expect(
        cloudNodeId({ db, config: { dataDir: tempDir() } } as unknown as Pick<CoreParts, 'db' | 'config'>),
      ).toBe(id);
    } finally {
      db.close();
    }
  });
});
