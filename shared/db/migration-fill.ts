/**
 * A migration's data step that SQL alone cannot compute in both databases (a hash, a rule that
 * lives in TypeScript): after the migration's DDL and in its transaction, `select` is read and each
 * row that `compute` returns is written to `table.column` by id. The runners (migrate.ts,
 * migrate-postgres.ts) apply it the same way on SQLite and PostgreSQL.
 */
export interface MigrationFill {
  select: string;
  table: string;
  column: string;
  compute(rows: ReadonlyArray<Record<string, unknown>>): Array<{ id: string; value: string }>;
}

/** The statement that writes one computed value, with `?` or `$n` placeholders. */
export function fillStatement(fill: MigrationFill, placeholders: 'sqlite' | 'postgres'): string {
  const [value, id] = placeholders === 'sqlite' ? ['?', '?'] : ['$1', '$2'];
  return `UPDATE ${fill.table} SET ${fill.column} = ${value} WHERE id = ${id}`;
}
