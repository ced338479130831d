import type { RequestHandler } from 'express';
import type { Clock } from '../clock.js';
import type { Kdb } from '../db/database.js';

/**
 * Counts 4xx/5xx answers per yard and minute for the dashboard. Counted in memory and written
 * in one small transaction every few seconds, so error bursts do not cost a write each.
 * Requests with no yard, or naming an id that is no yard's, are counted under yard "" (unattributed).
 */
export class ErrorStats {
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Kdb,
    private readonly clock: Clock,
  ) {}

  middleware: RequestHandler = (_req, res, next) => {
    res.on('finish', () => {
      if (res.statusCode < 400) return;
      const yardId = typeof res.locals.yardId === 'string' ? res.locals.yardId : '';
      const minute = Math.floor(this.clock.now() / 60_000) * 60_000;
      const key = `${yardId}|${minute}|${res.statusCode}`;
      this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    });
    next();
  };

  start(intervalMs = 5_000): void {
    this.timer = setInterval(() => void this.flush().catch(() => {}), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  /** Write pending counts. The dashboard calls this before reading so figures are current. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const known = await this.knownYards(batch.keys());
    const merged = new Map<string, { yardId: string; minute: number; status: number; count: number }>();
    for (const [key, count] of batch) {
      const [named, minute, status] = key.split('|') as [string, string, string];
      // A request may name any id; only real yards get figures (and rows), the rest is unattributed.
      const yardId = known.has(named) ? named : '';
      const row = merged.get(`${yardId}|${minute}|${status}`);
      if (row) row.count += count;
      else
        merged.set(`${yardId}|${minute}|${status}`, {
          yardId,
          minute: Number(minute),
          status: Number(status),
          count,
        });
    }
    const rows = [...merged.values()];
    await this.db
      .insertInto('httpErrorStat')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['yardId', 'minute', 'status'])
          .doUpdateSet((eb) => ({ count: eb('httpErrorStat.count', '+', eb.ref('excluded.count')) })),
      )
      .execute();
  }

  private async knownYards(keys: Iterable<string>): Promise<Set<string>> {
    const named = [...new Set([...keys].map((k) => k.slice(0, k.indexOf('|'))))].filter((id) => id !== '');
    const known = new Set<string>();
    // In slices: a burst of made-up ids must not exceed SQLite's limit of bound parameters.
    for (let i = 0; i < named.length; i += 500) {
      const slice = named.slice(i, i + 500);
      const found = await this.db.selectFrom('yard').select('id').where('id', 'in', slice).execute();
      for (const r of found) known.add(r.id);
    }
    return known;
  }
}
