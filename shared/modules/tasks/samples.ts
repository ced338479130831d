/** A yard's figures of one kind of sample (wait or duration, in ms): how many, their sum, their p90. */
export interface TimeStats {
  yardId: string;
  n: number;
  total: number;
  p90: number | null;
}

/**
 * Per yard: how many samples, their sum and their p90, the nearest rank: the ceil(0.9 n)-th
 * smallest, the ceil taken in integers as floor((9 n + 9) / 10), the rank the summary has always
 * answered (test/integration/tasks/summary-figures.test.ts compares it with the ranking in SQL).
 * Each yard's samples are sorted on their own: a day of one yard's tasks.
 */
export function timeStats(samples: ReadonlyArray<{ yardId: string; ms: number | string }>): TimeStats[] {
  const byYard = new Map<string, number[]>();
  for (const s of samples) {
    // PostgreSQL answers a bigint difference as text.
    const ms = Number(s.ms);
    const mine = byYard.get(s.yardId);
    if (mine) mine.push(ms);
    else byYard.set(s.yardId, [ms]);
  }
  return [...byYard].map(([yardId, values]) => {
    values.sort((a, b) => a - b);
    let total = 0;
    for (const v of values) total += v;
    return {
      yardId,
      n: values.length,
      total,
      p90: values[Math.floor((9 * values.length + 9) / 10) - 1] ?? null,
    };
  });
}
