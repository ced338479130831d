import type Database from 'better-sqlite3';

/** One read: the SQL text and parameters of a compiled Kysely query. */
export interface ReadTask {
  sql: string;
  parameters: readonly unknown[];
}

/**
 * Runs reads on one connection, reusing prepared statements by SQL text (Kysely binds values as
 * parameters, so the texts are few). The read workers and the main-thread fallback both run reads
 * through this, so a query gives the same rows wherever it runs. A statement that is not a read is
 * refused before it runs: the pool is for reads only (the workers' connections are also read-only).
 */
export class ReadStatements {
  private readonly cache = new Map<string, Database.Statement>();

  constructor(
    private readonly sqlite: Database.Database,
    private readonly max = 500,
  ) {}

  all(task: ReadTask): unknown[] {
    let stmt = this.cache.get(task.sql);
    if (!stmt) {
      stmt = this.sqlite.prepare(task.sql);
      if (!stmt.reader) throw new Error('the read pool runs reads only (this statement returns no rows)');
      if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(task.sql, stmt);
    }
    return stmt.all(...task.parameters);
  }
}
