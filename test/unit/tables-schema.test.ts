import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../shared/db/migrate.js';

/**
 * shared/db/tables.ts and shared/db/tables/*.ts (Kysely's types) are kept by hand beside the
 * migrations. This reads their interfaces with the TypeScript compiler API and compares each table's columns and their
 * nullability with a freshly migrated database, so a migration and tables.ts cannot drift apart.
 */

const DB_DIR = join(import.meta.dirname, '../../shared/db');
/** tables.ts (the DB interface) and the files of each area's tables it re-exports. */
const TABLE_FILES = [
  join(DB_DIR, 'tables.ts'),
  ...readdirSync(join(DB_DIR, 'tables'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(DB_DIR, 'tables', f)),
];
/** Tables the migration runner keeps for itself, outside Kysely's view. */
const INTERNAL = new Set(['schema_migration']);

interface Column {
  nullable: boolean;
}

/** camelCase -> snake_case, as Kysely's CamelCasePlugin maps them. */
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function kyselyTables(): Map<string, Map<string, Column>> {
  const interfaces = new Map<string, { decl: ts.InterfaceDeclaration; source: ts.SourceFile }>();
  for (const file of TABLE_FILES) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    source.forEachChild((node) => {
      if (ts.isInterfaceDeclaration(node)) interfaces.set(node.name.text, { decl: node, source });
    });
  }
  const columnsOf = (name: string): Map<string, Column> => {
    const found = interfaces.get(name);
    if (!found) throw new Error(`interface ${name} not found in tables.ts or tables/`);
    const { decl, source } = found;
    const columns = new Map<string, Column>();
    for (const clause of decl.heritageClauses ?? [])
      for (const base of clause.types)
        for (const [k, v] of columnsOf(base.expression.getText(source))) columns.set(k, v);
    for (const member of decl.members) {
      if (!ts.isPropertySignature(member) || !member.type) continue;
      // `T | null` (also inside Generated<...>) is a nullable column.
      columns.set(snake(member.name.getText(source)), {
        nullable: /\bnull\b/.test(member.type.getText(source)),
      });
    }
    return columns;
  };
  const tables = new Map<string, Map<string, Column>>();
  const db = interfaces.get('DB')!;
  const source = db.source;
  for (const member of db.decl.members) {
    if (!ts.isPropertySignature(member) || !member.type) continue;
    tables.set(snake(member.name.getText(source)), columnsOf(member.type.getText(source)));
  }
  return tables;
}

function migratedTables(): Map<string, Map<string, Column>> {
  const db = new Database(':memory:');
  try {
    migrate(db);
    const names = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all() as { name: string }[];
    const tables = new Map<string, Map<string, Column>>();
    for (const { name } of names) {
      if (INTERNAL.has(name)) continue;
      const cols = db.prepare('SELECT name, "notnull", pk, hidden FROM pragma_table_xinfo(?)').all(name) as {
        name: string;
        notnull: number;
        pk: number;
        hidden: number;
      }[];
      // A generated column (hidden 2 or 3) is typed by what its expression yields: its nullability is not compared.
      tables.set(
        name,
        new Map(cols.map((c) => [c.name, { nullable: c.notnull === 0 && c.pk === 0 && c.hidden < 2 }])),
      );
    }
    return tables;
  } finally {
    db.close();
  }
}

describe('db/tables.ts matches the migrated schema', () => {
  const typed = kyselyTables();
  const migrated = migratedTables();

  it('has a type for every table and no type for a table the migrations do not create', () => {
    expect([...typed.keys()].sort()).toEqual([...migrated.keys()].sort());
  });

  it('lists exactly the columns of each table, nullable where the column may be NULL', () => {
    const drift: string[] = [];
    for (const [table, columns] of migrated) {
      const kysely = typed.get(table);
      if (!kysely) continue;
      for (const [col, { nullable }] of columns) {
        const t = kysely.get(col);
        if (!t) drift.push(`${table}.${col}: in the migrations, missing from tables.ts`);
        else if (t.nullable !== nullable)
          drift.push(
            `${table}.${col}: ${nullable ? 'NULL allowed' : 'NOT NULL'} in SQL, ${t.nullable ? 'nullable' : 'not nullable'} in tables.ts`,
          );
      }
      for (const col of kysely.keys())
        if (!columns.has(col)) drift.push(`${table}.${col}: in tables.ts, not in the migrations`);
    }
    expect(drift).toEqual([]);
  });
});
