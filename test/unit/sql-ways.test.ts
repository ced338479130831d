import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The ways of writing SQL and where each belongs (docs/architecture.md "Writing SQL"). Kysely is the
 * default and needs no list; the two ways around it are kept to the files named here, each with
 * its reason. A failure names a file that took a way around Kysely: write it with Kysely, or, if
 * it truly is one of these cases, add it here with its reason and to the docs.
 */
const ROOT = join(import.meta.dirname, '../..');

/** Statements run on better-sqlite3's handle itself: SQLite only, synchronous on its connection. */
const SQLITE_DIRECT: Record<string, string> = {
  'shared/db/database.ts': 'the database layer: the dialect statement cache, pragmas',
  'shared/db/migrate.ts': 'the database layer: migrations at boot',
  'shared/db/read-pool-statements.ts': 'the database layer: the read workers',
  'shared/db/read-worker.ts': 'the database layer: the read workers',
  'shared/db/sql-work.ts': 'the database layer: SqliteWork, the synchronous SqlWork driver',
  'shared/sync/applier.ts': 'the one synchronous transaction a batch is applied in (SqlWork inside)',
  'shared/sync/work-runner.ts': 'the synchronous transaction the send side’s SqlWork runs in',
  'shared/sync/outbox.ts': 'the change-log read as array rows (hot path; PostgreSQL: SqlWork)',
  'shared/sync/ownership.ts': 'the write guard answers inside the write, synchronously',
  'shared/sync/routing.ts': 'the routing cache’s temporary triggers (this connection only)',
  'shared/sync/checksum.ts': 'comparing databases row by row (PostgreSQL twin beside it)',
  'shared/modules/dashboard/rollups/rebuild.ts': 'the rollups rebuilt beside bulk inserts (PostgreSQL twin)',
  'cloud/sync/index.ts': 'the node id, read at start before anything is async (PostgreSQL: a file)',
};

/** Compile-once Kysely (shared/db/prepared.ts): measured per-request hot paths only. */
const COMPILED_ONCE: Record<string, string> = {
  'shared/db/prepared.ts': 'where it is defined',
  'shared/modules/movements/gate-lookups.ts': 'the lookups of every gate movement',
  'shared/modules/trailers/repo.ts': 'the trailer list, one statement per filter shape',
  'shared/sync/change-capture.ts': 'every write of a synced record',
  'shared/sync/change-log-writer.ts': 'the change-log rows of every such write',
};

const SQLITE_STATEMENT =
  /\bsqlite\s*\.\s*(prepare|exec|pragma|transaction)\s*\(|sqliteOf\([^)]*\)\s*\.\s*(prepare|exec|pragma|transaction)\s*\(|\.pluck\(/;
const COMPILE_ONCE = /\bprepareQuery\b|\bShapeCache\b/;

function productFiles(): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        // The web apps' sources run in browsers: no database there.
        if (path !== join(ROOT, 'shared', 'ui')) walk(path);
      } else if (path.endsWith('.ts')) {
        out.push({ path: relative(ROOT, path).split(sep).join('/'), text: readFileSync(path, 'utf8') });
      }
    }
  };
  for (const dir of ['shared', 'edge', 'cloud']) walk(join(ROOT, dir));
  return out;
}

/** The files matching `pattern` that `allowed` does not name. */
function strayUses(
  files: ReadonlyArray<{ path: string; text: string }>,
  pattern: RegExp,
  allowed: Record<string, string>,
): string[] {
  return files.filter((f) => pattern.test(f.text) && !(f.path in allowed)).map((f) => f.path);
}

const files = productFiles();

describe('the ways of writing SQL (docs/architecture.md "Writing SQL")', () => {
  it('statements on better-sqlite3 directly only where SQLite must answer synchronously', () => {
    expect(strayUses(files, SQLITE_STATEMENT, SQLITE_DIRECT)).toEqual([]);
  });

  it('compile-once Kysely only on the measured hot paths', () => {
    expect(strayUses(files, COMPILE_ONCE, COMPILED_ONCE)).toEqual([]);
  });

  it('sees a stray use: a status count on the handle, split over lines', () => {
    const planted = {
      path: 'edge/sync/planted.ts',
      text: "const n = sqlite\n  .prepare('SELECT count(*) FROM sync_pending')\n  .pluck()\n  .get();",
    };
    expect(strayUses([planted], SQLITE_STATEMENT, SQLITE_DIRECT)).toEqual(['edge/sync/planted.ts']);
    const viaHelper = { path: 'cloud/x.ts', text: "sqliteOf(db, 'x').prepare('SELECT 1')" };
    expect(strayUses([viaHelper], SQLITE_STATEMENT, SQLITE_DIRECT)).toEqual(['cloud/x.ts']);
  });

  it('every file named still takes that way (a list that only grows hides nothing)', () => {
    const named = (list: Record<string, string>, pattern: RegExp) =>
      Object.keys(list).filter((path) => !files.some((f) => f.path === path && pattern.test(f.text)));
    expect(named(SQLITE_DIRECT, SQLITE_STATEMENT)).toEqual([]);
    expect(named(COMPILED_ONCE, COMPILE_ONCE)).toEqual([]);
  });
});
