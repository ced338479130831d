import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import {
  CamelCasePlugin,
  DeleteQueryNode,
  InsertQueryNode,
  Kysely,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  UpdateQueryNode,
} from 'kysely';
import type { Pool } from 'pg';
import { SYNCED_SQL_TABLES, toSnake } from '../sync/entities.js';
import { migrate } from './migrate.js';
import { RollbackSafeSqliteDialect } from './sqlite-dialect.js';
import type { DB } from './tables.js';

export type Kdb = Kysely<DB>;

/** What every database of the app offers, SQLite or PostgreSQL. */
interface DatabaseBase {
  /** Query builder for repos. Writes to synced tables through it are refused: use ChangeCapture. */
  kysely: Kdb;
  /** Watch executed queries (SQL text and parameters): slow-query logging, tests counting queries. */
  onQuery(listener: QueryListener): () => void;
}

/** The embedded database: the edge always, the cloud by default. */
export interface SqliteDatabase extends DatabaseBase {
  dialect: 'sqlite';
  /** The connection itself, for the synchronous hot paths (sync, rollups) that run on it. */
  sqlite: Database.Database;
  file: string;
  close(): void;
}

/** The cloud's database in production (shared/db/postgres-database.ts). */
export interface PostgresDatabase extends DatabaseBase {
  dialect: 'postgres';
  pool: Pool;
  /** Where it is, without the password (logs, the start banner). */
  where: string;
  close(): Promise<void>;
}

export type AppDatabase = SqliteDatabase | PostgresDatabase;

export type Dialect = AppDatabase['dialect'];

/** The SQLite connection of a part that runs on SQLite only; names the part when it is PostgreSQL. */
export function sqliteOf(db: AppDatabase, part: string): Database.Database {
  if (db.dialect === 'sqlite') return db.sqlite;
  throw new Error(`${part} runs on SQLite only and has no PostgreSQL twin yet`);
}

export type QueryListener = (sql: string, parameters: readonly unknown[], durationMs: number) => void;

/**
 * Opens (creating if needed) the SQLite database and applies pending migrations.
 * WAL + synchronous=FULL: an acknowledged write survives power loss on the gate box.
 */
export function openDatabase(file: string): SqliteDatabase {
  if (file !== ':memory:') {
    mkdirSync(dirname(file), { recursive: true });
    // Owner-only from the start: the file holds password hashes and integration secrets. SQLite
    // gives the -wal and -shm files it creates the database file's permissions.
    closeSync(openSync(file, 'a', 0o600));
  }
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  migrate(sqlite);
  const listeners = new Set<QueryListener>();
  const kysely = new Kysely<DB>({
    log: (event) => {
      if (listeners.size === 0) return;
      for (const l of listeners) l(event.query.sql, event.query.parameters, event.queryDurationMillis);
    },
    dialect: new RollbackSafeSqliteDialect(sqlite, { database: withStatementCache(sqlite) }),
    plugins: [new CamelCasePlugin(), new SyncedWriteGuard()],
  });
  let closed = false;
  return {
    dialect: 'sqlite',
    kysely,
    sqlite,
    file,
    onQuery(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      if (closed) return;
      closed = true;
      // Fold the WAL back into the main file so a copied database file is complete.
      sqlite.pragma('wal_checkpoint(TRUNCATE)');
      sqlite.close();
    },
  };
}

/**
 * Kysely prepares every statement anew; preparing costs more than running a small indexed query.
 * Reuse prepared statements by SQL text (Kysely binds values as parameters, so the set of distinct
 * texts is small). Oldest entries go first when the cache is full.
 */
function withStatementCache(sqlite: Database.Database, max = 2000) {
  const cache = new Map<string, Database.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = sqlite.prepare(sql);
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
        cache.set(sql, stmt);
      }
      return stmt as unknown as ReturnType<Database.Database['prepare']> & { reader: boolean };
    },
  };
}

/** The unguarded builder ChangeCapture writes synced rows with (same connection / transaction). */
export function unguarded(db: Kdb): Kdb {
  return db.withoutPlugins().withPlugin(new CamelCasePlugin());
}

export class SyncedWriteRefused extends Error {}

/**
 * Refuses INSERT/UPDATE/DELETE on synced tables unless made through ChangeCapture, so no write
 * path can skip its change_log row.
 */
export class SyncedWriteGuard implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const node = args.node;
    const table = writtenTable(node);
    if (table && SYNCED_SQL_TABLES.has(toSnake(table))) {
      throw new SyncedWriteRefused(`Write to synced table "${table}" must go through ChangeCapture`);
    }
    return node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

function tableNameOf(node: OperationNode | undefined): string | undefined {
  if (!node) return undefined;
  const n = node as unknown as {
    kind: string;
    table?: { identifier?: { name?: string } };
    node?: OperationNode;
  };
  if (n.kind === 'TableNode') return n.table?.identifier?.name;
  if (n.kind === 'AliasNode') return tableNameOf(n.node);
  return undefined;
}

function writtenTable(node: RootOperationNode): string | undefined {
  if (InsertQueryNode.is(node)) return tableNameOf(node.into);
  if (UpdateQueryNode.is(node)) return tableNameOf(node.table);
  if (DeleteQueryNode.is(node)) return tableNameOf(node.from.froms[0]);
  return undefined;
}
