import type { DashboardScale } from './dashboard-scale.js';

/** Rows written while seeding: per table, with a progress line (rows/s, % of sites) every few seconds. */
export class Progress {
  readonly rows: Record<string, number> = {};
  private total = 0;
  private readonly started = performance.now();
  private lastPrint = 0;

  constructor(
    private readonly scale: DashboardScale,
    private readonly everyMs = 5_000,
  ) {}

  add(table: string, n = 1): void {
    this.rows[table] = (this.rows[table] ?? 0) + n;
    this.total += n;
  }

  siteDone(sites: number): void {
    const now = performance.now();
    if (now - this.lastPrint < this.everyMs && sites < this.scale.sites) return;
    this.lastPrint = now;
    const seconds = (now - this.started) / 1000;
    const rate = this.total / seconds;
    const eta = (seconds / sites) * (this.scale.sites - sites);
    console.log(
      `  ${((100 * sites) / this.scale.sites).toFixed(0).padStart(3)}%  ${sites}/${this.scale.sites} sites, ` +
        `${(this.total / 1e6).toFixed(2)} M rows, ${Math.round(rate / 1000)} k rows/s, ` +
        `${seconds.toFixed(0)} s elapsed, ~${eta.toFixed(0)} s to go`,
    );
  }

  finish(): void {
    const seconds = (performance.now() - this.started) / 1000;
    console.log(
      `  done: ${this.total.toLocaleString('en')} rows in ${seconds.toFixed(1)} s ` +
        `(${Math.round(this.total / seconds / 1000)} k rows/s)`,
    );
  }
}
