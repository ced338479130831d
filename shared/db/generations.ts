/**
 * A counter per table, bumped by every write through ChangeCapture (the only write path of synced
 * tables), and on PostgreSQL also after every commit that changed the table on any cloud node
 * (shared/sync/postgres-commit-signals.ts). A cached answer computed at generation g of its table
 * is current while the table is still at g. A bump from a write whose transaction then rolls back
 * only costs a cache miss.
 */
export class TableGenerations {
  private readonly counters = new Map<string, number>();
  private readonly watchers = new Map<string, Array<() => void>>();

  bump(table: string): void {
    this.counters.set(table, (this.counters.get(table) ?? 0) + 1);
    for (const watcher of this.watchers.get(table) ?? []) watcher();
  }

  /** Every table changed, or may have (notifications from the other nodes were missed). */
  bumpAll(): void {
    for (const table of new Set([...this.counters.keys(), ...this.watchers.keys()])) this.bump(table);
  }

  of(table: string): number {
    return this.counters.get(table) ?? 0;
  }

  /** Calls `watcher` on each bump of one of the tables (a cache kept outside this counter). */
  watch(tables: readonly string[], watcher: () => void): void {
    for (const table of tables) this.watchers.set(table, [...(this.watchers.get(table) ?? []), watcher]);
  }
}
