import type { Dialect } from '../db/database.js';
import { type SqlStatement, type SqlStep, type SqlWork, sqlRows, statement } from '../db/sql-work.js';
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
 * A table's columns and whether each is generated (a local read model such as api_json, never
 * written): SQLite's table_xinfo (hidden 2/3 = generated), PostgreSQL's catalogue.
 */
const COLUMNS = statement('shape|columns', 'rows', (dialect) =>
  dialect === 'sqlite'
    ? 'SELECT name, hidden <> 0 AS generated FROM pragma_table_xinfo(?) ORDER BY cid'
    : "SELECT column_name AS name, is_generated = 'ALWAYS' AS generated FROM information_schema.columns " +
      'WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position',
);

/**
 * SQL for synced rows as SqlWork (shared/db/sql-work.ts), written once for both databases: applying
 * a week of an edge's changes must run at tens of thousands of rows per second on SQLite, so
 * statements are plain SQL built once per (table, operation, column set) and cached by key (the
 * drivers prepare each key once); table shapes are read from the catalogue once.
 *
 * Reads of a stored row are FOR UPDATE on PostgreSQL: the applier decides what to write from them
 * (a merge, a trust check), and several cloud nodes apply at once under READ COMMITTED.
 */
export class RowSql {
  private readonly shapes = new Map<string, TableShape>();
  private readonly statements = new Map<string, SqlStatement>();

  /** The table's shape (read once, then cached: no statement after the first call). */
  *shape(entity: SyncedEntity): SqlWork<TableShape> {
    const known = this.shapes.get(entity.entity);
    if (known) return known;
    const shape = yield* this.readShape(entity);
    this.shapes.set(entity.entity, shape);
    return shape;
  }

  /** The shape if already read (synchronous callers that read it before). */
  knownShape(entity: SyncedEntity): TableShape | undefined {
    return this.shapes.get(entity.entity);
  }

  /** The stored row (camelCase fields), or undefined; locked for the transaction on PostgreSQL. */
  *select(shape: TableShape, id: string): SqlWork<Fields | undefined> {
    const stmt = this.statement(`select|${shape.table}`, 'row', (dialect) => {
      const list = shape.columns.map((c) => `"${c.column}"`).join(', ');
      return `SELECT ${list} FROM "${shape.table}" WHERE "${shape.keyColumn}" = ?${forUpdate(dialect)}`;
    });
    const raw = (yield step(stmt, [id])) as Record<string, unknown> | undefined;
    return raw ? this.toFields(shape, raw) : undefined;
  }

  /**
   * The stored rows with these keys (camelCase fields, by key), in one statement: a run of rows
   * applied together (apply-runs.ts). Locked for the transaction on PostgreSQL, as select() is, in
   * key order (PostgreSQL locks the rows as the sort hands them over): two transactions reading
   * overlapping keys take their locks in the same order, so they wait for each other, never deadlock.
   */
  *selectMany(shape: TableShape, ids: readonly string[]): SqlWork<Map<string, Fields>> {
    const stmt = this.statement(`select-many|${shape.table}`, 'rows', (dialect) => {
      const list = shape.columns.map((c) => `"${c.column}"`).join(', ');
      const order = ` ORDER BY "${shape.keyColumn}"`;
      return `SELECT ${list} FROM "${shape.table}" WHERE ${inJsonTexts(shape.keyColumn, dialect)}${order}${forUpdate(dialect)}`;
    });
    const raws = (yield step(stmt, [JSON.stringify(ids)])) as Array<Record<string, unknown>>;
    const found = new Map<string, Fields>();
    for (const raw of raws) found.set(String(raw[shape.keyColumn]), this.toFields(shape, raw));
    return found;
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
  *insert(shape: TableShape, row: Fields, ifAbsent: boolean): SqlWork<boolean> {
    const { columns, values, signature } = this.bind(shape, row);
    const stmt = this.statement(`insert|${ifAbsent}|${shape.table}|${signature}`, 'changes', () => {
      const list = columns.map((c) => `"${c}"`).join(', ');
      const conflict = ifAbsent ? ` ON CONFLICT ("${shape.keyColumn}") DO NOTHING` : '';
      return `INSERT INTO "${shape.table}" (${list}) VALUES (${columns.map(() => '?').join(', ')})${conflict}`;
    });
    return ((yield step(stmt, values)) as number) > 0;
  }

  /**
   * INSERT of many rows in one statement, each as insert(shape, row, true) would write it (an
   * existing key leaves the stored row alone): the keys of the rows written. Rows are sent as one
   * JSON parameter, so the text is one per column set, whatever the number of rows. Rows with other
   * column sets than the first go in a statement of their own (a column a row lacks keeps its
   * default, as in insert()). The caller gives distinct keys.
   */
  *insertManyIfAbsent(shape: TableShape, rows: readonly Fields[]): SqlWork<Set<string>> {
    const bySignature = new Map<string, { columns: string[]; values: Array<Record<string, unknown>> }>();
    for (const row of rows) {
      const { columns, values, signature } = this.bind(shape, row);
      const entry = bySignature.get(signature) ?? { columns, values: [] };
      bySignature.set(signature, entry);
      entry.values.push(Object.fromEntries(columns.map((c, i) => [c, values[i]])));
    }
    const written = new Set<string>();
    for (const [signature, { columns, values }] of bySignature) {
      const stmt = this.statement(`insert-many|${shape.table}|${signature}`, 'rows', (dialect) =>
        insertManyText(shape, columns, dialect),
      );
      const raws = (yield step(stmt, [JSON.stringify(values)])) as Array<Record<string, unknown>>;
      for (const raw of raws) written.add(String(raw[shape.keyColumn]));
    }
    return written;
  }

  /** UPDATE of the given fields (the key excluded) of the row with this key. */
  *update(shape: TableShape, id: string, row: Fields): SqlWork<boolean> {
    const { columns, values, signature } = this.bind(shape, row, shape.keyColumn);
    if (columns.length === 0) return false;
    const stmt = this.statement(`update|${shape.table}|${signature}`, 'changes', () => {
      const set = columns.map((c) => `"${c}" = ?`).join(', ');
      return `UPDATE "${shape.table}" SET ${set} WHERE "${shape.keyColumn}" = ?`;
    });
    values.push(id);
    return ((yield step(stmt, values)) as number) > 0;
  }

  *delete(shape: TableShape, id: string): SqlWork<boolean> {
    const stmt = this.statement(
      `delete|${shape.table}`,
      'changes',
      () => `DELETE FROM "${shape.table}" WHERE "${shape.keyColumn}" = ?`,
    );
    return ((yield step(stmt, [id])) as number) > 0;
  }

  /** A statement built once per key (the SQL text is made only on the first use). */
  statement(
    key: string,
    returns: SqlStatement['returns'],
    text: string | ((dialect: Dialect) => string),
  ): SqlStatement {
    let stmt = this.statements.get(key);
    if (!stmt) {
      stmt = statement(key, returns, text);
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

  private *readShape(entity: SyncedEntity): SqlWork<TableShape> {
    const table = toSnake(entity.table);
    const info = (yield* sqlRows(COLUMNS, [table])) as Array<{ name: string; generated: unknown }>;
    if (info.length === 0) throw new Error(`table ${table} does not exist`);
    const columns = info.filter((c) => !c.generated).map((c) => ({ column: c.name, field: toCamel(c.name) }));
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

/**
 * A statement step yielded straight from the work instead of through sqlRow/sqlRun: on SQLite's hot
 * path every level of `yield*` is resumed for every statement below it.
 */
function step(statement: SqlStatement, params: readonly unknown[]): SqlStep {
  return { kind: 'sql', statement, params };
}

/**
 * ` FOR UPDATE` on PostgreSQL, for a read the work then writes on (READ COMMITTED, several cloud
 * nodes): SQLite's transaction holds the whole database already.
 */
export function forUpdate(dialect: Dialect): string {
  return dialect === 'postgres' ? ' FOR UPDATE' : '';
}

/**
 * `key IN` the text elements of a JSON array parameter. On PostgreSQL as `= ANY(ARRAY(...))`: the
 * array is computed once and the condition is an index condition on the key, however few rows the
 * table has (an IN subquery was planned as a hash join over a sequential scan of a small table).
 */
function inJsonTexts(column: string, dialect: Dialect): string {
  return dialect === 'postgres'
    ? `"${column}" = ANY(ARRAY(SELECT json_array_elements_text(?::json)))`
    : `"${column}" IN (SELECT value FROM json_each(?))`;
}

/**
 * INSERT ... SELECT from a JSON array of objects keyed by column: PostgreSQL converts each value to
 * its column's type (json_populate_recordset, the column's input function as for a text parameter);
 * SQLite takes JSON numbers, strings and null as the values they are. `WHERE true` lets SQLite tell
 * the ON CONFLICT clause from a join's.
 */
function insertManyText(shape: TableShape, columns: readonly string[], dialect: Dialect): string {
  const list = columns.map((c) => `"${c}"`).join(', ');
  const key = `"${shape.keyColumn}"`;
  const source =
    dialect === 'postgres'
      ? `SELECT ${list} FROM json_populate_recordset(NULL::"${shape.table}", ?::json)`
      : `SELECT ${columns.map((c) => `value ->> '$."${c}"'`).join(', ')} FROM json_each(?) WHERE true`;
  return `INSERT INTO "${shape.table}" (${list}) ${source} ON CONFLICT (${key}) DO NOTHING RETURNING ${key}`;
}

function scalar(value: unknown, field: string): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  throw new TypeError(
    `field ${field} holds a ${Array.isArray(value) ? 'list' : typeof value}, not a column value`,
  );
}
