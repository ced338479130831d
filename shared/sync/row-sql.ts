import type Database from 'better-sqlite3';
import { type SyncedEntity, toSnake } from './entities.js';

/** A row as ChangeCapture logs it: camelCase field names, SQLite scalar values. */
export type Fields = Record<string, unknown>;

/** One synced table as the applier writes it: its stored columns and their camelCase field names. */
export interface TableShape {
  entity: SyncedEntity;
  /** SQL table name. */
  table: string;
  keyColumn: string;
  keyField: string;
  /** Stored columns (generated ones such as api_json left out), in table order. */
  columns: ReadonlyArray<{ column: string; field: string }>;
  /** camelCase field -> column. */
  columnOf: ReadonlyMap<string, string>;
  /** column -> camelCase field. */
  fieldOf: ReadonlyMap<string, string>;
}

/** Kysely's CamelCasePlugin mapping (snake_case column -> camelCase field). */
export function toCamel(column: string): string {
  return column.replace(/_+(.)/g, (_, c: string) => c.toUpperCase());
}

/**
 * Synchronous SQL for synced rows, straight on better-sqlite3 (not Kysely): applying a week of an
 * edge's changes must run at tens of thousands of rows per second. Statements are prepared once per
 * (table, operation, column set) and reused; table shapes come from PRAGMA table_xinfo once.
 */
export class RowSql {
  private readonly shapes = new Map<string, TableShape>();
  private readonly statements = new Map<string, Database.Statement>();

  constructor(readonly sqlite: Database.Database) {}

  shape(entity: SyncedEntity): TableShape {
    let shape = this.shapes.get(entity.entity);
    if (!shape) {
      shape = this.readShape(entity);
      this.shapes.set(entity.entity, shape);
    }
    return shape;
  }

  /** The stored row (camelCase fields), or undefined. */
  select(shape: TableShape, id: string): Fields | undefined {
    const raw = this.statement(`select|${shape.table}`, () => {
      const list = shape.columns.map((c) => `"${c.column}"`).join(', ');
      return `SELECT ${list} FROM "${shape.table}" WHERE "${shape.keyColumn}" = ?`;
    }).get(id) as Record<string, unknown> | undefined;
    return raw ? this.toFields(shape, raw) : undefined;
  }

  /** A raw stored row (snake_case columns) -> camelCase fields. */
  toFields(shape: TableShape, raw: Record<string, unknown>): Fields {
    const out: Fields = {};
    for (const { column, field } of shape.columns) if (column in raw) out[field] = raw[column];
    return out;
  }

  /**
   * INSERT of the fields the table has. `ifAbsent`: an existing key leaves the stored row alone
   * (other unique constraints still fail). Returns whether a row was written.
   */
  insert(shape: TableShape, row: Fields, ifAbsent: boolean): boolean {
    const { columns, values, signature } = this.bind(shape, row);
    const stmt = this.statement(`insert|${ifAbsent}|${shape.table}|${signature}`, () => {
      const list = columns.map((c) => `"${c}"`).join(', ');
      const conflict = ifAbsent ? ` ON CONFLICT ("${shape.keyColumn}") DO NOTHING` : '';
      return `INSERT INTO "${shape.table}" (${list}) VALUES (${columns.map(() => '?').join(', ')})${conflict}`;
    });
    return stmt.run(values).changes > 0;
  }

  /** UPDATE of the given fields (the key excluded) of the row with this key. */
  update(shape: TableShape, id: string, row: Fields): boolean {
    const { columns, values, signature } = this.bind(shape, row, shape.keyColumn);
    if (columns.length === 0) return false;
    const stmt = this.statement(`update|${shape.table}|${signature}`, () => {
      const set = columns.map((c) => `"${c}" = ?`).join(', ');
      return `UPDATE "${shape.table}" SET ${set} WHERE "${shape.keyColumn}" = ?`;
    });
    return stmt.run([...values, id]).changes > 0;
  }

  delete(shape: TableShape, id: string): boolean {
    return (
      this.statement(
        `delete|${shape.table}`,
        () => `DELETE FROM "${shape.table}" WHERE "${shape.keyColumn}" = ?`,
      ).run(id).changes > 0
    );
  }

  /** A cached prepared statement for any other SQL of the applier. */
  statement(key: string, sql: () => string): Database.Statement {
    let stmt = this.statements.get(key);
    if (!stmt) {
      stmt = this.sqlite.prepare(sql());
      this.statements.set(key, stmt);
    }
    return stmt;
  }

  /**
   * Columns and values of the row's fields that the table stores, in table order. Fields the table
   * lacks (a newer peer's additions) are left out; so are missing ones (the column keeps its
   * default on insert, its value on update). Values must be SQLite scalars.
   */
  private bind(shape: TableShape, row: Fields, skipColumn?: string) {
    const columns: string[] = [];
    const values: unknown[] = [];
    let signature = '';
    for (const { column, field } of shape.columns) {
      if (column === skipColumn || !(field in row)) continue;
      const value = row[field];
      if (value === undefined) continue;
      columns.push(column);
      values.push(scalar(value, field));
      signature += `${column},`;
    }
    return { columns, values, signature };
  }

  private readShape(entity: SyncedEntity): TableShape {
    const table = toSnake(entity.table);
    // hidden: 0 a normal column, 2/3 generated (virtual/stored): a local read model, never written.
    const info = this.sqlite.prepare(`PRAGMA table_xinfo("${table}")`).all() as Array<{
      name: string;
      hidden: number;
    }>;
    if (info.length === 0) throw new Error(`table ${table} does not exist`);
    const columns = info
      .filter((c) => c.hidden === 0)
      .map((c) => ({ column: c.name, field: toCamel(c.name) }));
    const keyColumn = toSnake(entity.key);
    return {
      entity,
      table,
      keyColumn,
      keyField: toCamel(keyColumn),
      columns,
      columnOf: new Map(columns.map((c) => [c.field, c.column])),
      fieldOf: new Map(columns.map((c) => [c.column, c.field])),
    };
  }
}

function scalar(value: unknown, field: string): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  throw new TypeError(
    `field ${field} holds a ${Array.isArray(value) ? 'list' : typeof value}, not a column value`,
  );
}
