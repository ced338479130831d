/** A yard's figures of one kind of sample (wait or duration, in ms): how many, their sum, their p90. */
export interface TimeStats {
  yardId: string;
  n: number;
  total: number;
  p90: number | null;
}

/**
 * Per yard: how many samples, their sum (both counted in SQL) and their p90, the nearest rank: the
 * ceil(0.9 n)-th smallest, the ceil taken in integers as floor((9 n + 9) / 10), the rank the
 * summary has always answered (test/integration/tasks/summary-figures.test.ts compares it with the
 * ranking in SQL). `samples` is the yard's samples as text, comma-separated, in any order; each
 * yard's are sorted on their own: a day of one yard's tasks.
 */
export function timeStats(
  rows: ReadonlyArray<{ yardId: string; n: number | string; total: number | string; samples: string }>,
): TimeStats[] {
  return rows.map((r) => {
    const values = r.samples.split(',').map(Number);
    values.sort((a, b) => a - b);
    // PostgreSQL answers count and a bigint sum as text.
    return {
      yardId: r.yardId,
      n: Number(r.n),
      total: Number(r.total),
      p90: values[Math.floor((9 * values.length + 9) / 10) - 1] ?? null,
    };
  });
}
