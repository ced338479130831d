/**
 * A counter per table, bumped by every write through ChangeCapture (the only write path of synced
 * tables). A cached answer computed at generation g of its table is current while the table is
 * still at g. A bump from a write whose transaction then rolls back only costs a cache miss.
 */
export class TableGenerations {
  private readonly counters = new Map<string, number>();

  bump(table: string): void {
    this.counters.set(table, (this.counters.get(table) ?? 0) + 1);
  }

  of(table: string): number {
    return this.counters.get(table) ?? 0;
  }
}
