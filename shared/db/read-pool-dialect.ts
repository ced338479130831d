import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { ReadTask } from './read-pool-statements.js';

/**
 * A Kysely dialect whose queries run through `run` (the read pool): SQLite's compiler and adapter,
 * and a driver with no connection state, so reads run side by side. It has no transactions (a read
 * of the pool is one statement at its own snapshot) and no streaming.
 */
export function readPoolDialect(run: (task: ReadTask) => Promise<unknown[]>): Dialect {
  const connection: DatabaseConnection = {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      return { rows: (await run({ sql: query.sql, parameters: query.parameters })) as R[] };
    },
    // biome-ignore lint/correctness/useYield: it refuses before yielding anything
    async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
      throw new Error('the read pool does not stream: read a bounded page');
    },
  };
  const noTransactions = async () => {
    throw new Error('the read pool has no transactions: each read is one statement (use the main kysely)');
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    releaseConnection: async () => {},
    beginTransaction: noTransactions,
    commitTransaction: noTransactions,
    rollbackTransaction: noTransactions,
    destroy: async () => {},
  };
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => driver,
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
