/** A row as the observers see it: camelCase field names, SQLite scalar values. */
export type ObservedRow = Record<string, unknown>;

/**
 * One written row: `before` undefined for an insert, `after` undefined for a delete. Table names as
 * in Kysely's DB (camelCase: 'trailer', 'yardTask', 'visit').
 */
export interface RowWrite {
  table: string;
  before: ObservedRow | undefined;
  after: ObservedRow | undefined;
}

/**
 * Something kept in step with rows as they are written (a module's read model, such as the
 * dashboard's rollups). Called synchronously, inside the write's transaction and on the same
 * connection, so what it writes commits or rolls back with the row; it must not await. A throw
 * undoes the write.
 */
export interface RowObserver {
  /** The tables it follows; writes to others are not reported (and cost nothing). */
  readonly tables: ReadonlySet<string>;
  rowWritten(write: RowWrite): void;
}

/**
 * The observers of row writes, handed to the writers by the composition root (shared/services.ts):
 * ChangeCapture (local writes of synced rows), the sync applier (rows applied from a peer, and the
 * visits it derives from them) and the movements module (the visits it derives locally). The sync
 * engine knows the observers only by this interface: it depends on no module that observes.
 */
export class RowObservers {
  private readonly byTable = new Map<string, RowObserver[]>();

  add(observer: RowObserver): void {
    for (const table of observer.tables)
      this.byTable.set(table, [...(this.byTable.get(table) ?? []), observer]);
  }

  /** Whether some observer follows the table (writers skip reading rows back otherwise). */
  watches(table: string): boolean {
    return this.byTable.has(table);
  }

  notify(table: string, before: ObservedRow | undefined, after: ObservedRow | undefined): void {
    const observers = this.byTable.get(table);
    if (!observers) return;
    for (const o of observers) o.rowWritten({ table, before, after });
  }
}
