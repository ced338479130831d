import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import type { Bucket, MovementFigures } from './data';
import { count } from './occupancy';

/** The two series' colours (canvas cannot read CSS variables): both meet 3:1 against white. */
const IN_COLOUR = '#0b5cad';
const OUT_COLOUR = '#b34700';

/** uPlot is loaded on first use, so it stays out of the dashboard's first load. */
let loading: Promise<typeof uPlot> | undefined;
function loadUPlot(): Promise<typeof uPlot> {
  loading ??= Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]).then(([m]) => m.default);
  return loading;
}

function bucketName(start: string, bucket: Bucket, timeZone: string): string {
  const f = new Intl.DateTimeFormat(
    undefined,
    bucket === 'hour'
      ? { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit' }
      : { timeZone, weekday: 'short', day: 'numeric', month: 'short' },
  );
  return f.format(Date.parse(start));
}

/** What the chart says, in words (for screen readers, and anyone who prefers a sentence). */
export function movementSummary(m: MovementFigures, timeZone: string): string {
  const span = m.bucket === 'hour' ? 'the last 24 hours' : 'the last 30 days';
  let busiest: MovementFigures['buckets'][number] | undefined;
  for (const b of m.buckets) if (!busiest || b.in + b.out > busiest.in + busiest.out) busiest = b;
  const peak =
    busiest && busiest.in + busiest.out > 0
      ? ` Busiest ${m.bucket === 'hour' ? 'hour' : 'day'}: ${bucketName(busiest.start, m.bucket, timeZone)}, ${count.format(busiest.in)} in and ${count.format(busiest.out)} out.`
      : '';
  const plural = (n: number, word: string) => `${count.format(n)} ${word}${n === 1 ? '' : 's'}`;
  return `In ${span}: ${plural(m.totals.in, 'check-in')} and ${plural(m.totals.out, 'check-out')}.${peak}`;
}

function chartOptions(U: typeof uPlot, width: number, bucket: Bucket, timeZone: string): uPlot.Options {
  return {
    width,
    height: 260,
    tzDate: (ts) => U.tzDate(new Date(ts * 1000), timeZone),
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
    axes: [
      {},
      {
        label: 'Movements',
        values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? String(v) : '')),
      },
    ],
    series: [
      { value: (_u, v) => (v == null ? '' : bucketName(new Date(v * 1000).toISOString(), bucket, timeZone)) },
      {
        label: 'In',
        stroke: IN_COLOUR,
        width: 2,
        fill: 'rgba(11, 92, 173, 0.08)',
        points: { show: bucket === 'day' },
      },
      { label: 'Out', stroke: OUT_COLOUR, width: 2, dash: [6, 4], points: { show: bucket === 'day' } },
    ],
  };
}

/**
 * Movements in and out over time, drawn by uPlot in the yard's time zone. The canvas is hidden
 * from screen readers: the summary sentence and the table below it say the same.
 */
export function MovementChart(props: { m: MovementFigures; timeZone: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const { m, timeZone } = props;

  useEffect(() => {
    let alive = true;
    let resize: ResizeObserver | undefined;
    const data: uPlot.AlignedData = [
      m.buckets.map((b) => Date.parse(b.start) / 1000),
      m.buckets.map((b) => b.in),
      m.buckets.map((b) => b.out),
    ];
    loadUPlot().then(
      (U) => {
        const el = box.current;
        if (!alive || !el) return;
        plot.current?.destroy();
        plot.current = new U(chartOptions(U, el.clientWidth || 600, m.bucket, timeZone), data, el);
        resize = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height: 260 }));
        resize.observe(el);
      },
      () => alive && setProblem('The chart could not be loaded; the table below has the same figures.'),
    );
    return () => {
      alive = false;
      resize?.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [m, timeZone]);

  return (
    <>
      <p class="chart-summary">{movementSummary(m, timeZone)}</p>
      {problem && <p class="retry-bad">{problem}</p>}
      <div class="movement-chart" ref={box} aria-hidden="true" />
      <details class="chart-table">
        <summary>Figures as a table</summary>
        <table>
          <caption class="visually-hidden">
            Movements per {m.bucket === 'hour' ? 'hour' : 'day'}, in the yard's time zone ({timeZone})
          </caption>
          <thead>
            <tr>
              <th scope="col">{m.bucket === 'hour' ? 'Hour' : 'Day'}</th>
              <th scope="col" class="num">
                In
              </th>
              <th scope="col" class="num">
                Out
              </th>
            </tr>
          </thead>
          <tbody>
            {m.buckets.map((b) => (
              <tr key={b.start}>
                <th scope="row">{bucketName(b.start, m.bucket, timeZone)}</th>
                <td class="num">{count.format(b.in)}</td>
                <td class="num">{count.format(b.out)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </>
  );
}
