import { useEffect, useState } from 'preact/hooks';
import { problemText } from '../../common/api/problem-text';
import { type Bucket, loadMovements, type MovementFigures } from './data';
import { MovementChart } from './movement-chart';

const RANGES: { bucket: Bucket; label: string }[] = [
  { bucket: 'hour', label: 'Last 24 hours, by hour' },
  { bucket: 'day', label: 'Last 30 days, by day' },
];

/** The movements panel: the range switch and the chart; `version` bumps when live events say the data moved. */
export function Movements(props: { yardId: string; timeZone: string; version: number }) {
  const [bucket, setBucket] = useState<Bucket>('hour');
  const [m, setM] = useState<MovementFigures | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let alive = true;
    loadMovements(props.yardId, bucket).then(
      (r) => {
        if (!alive) return;
        setM(r);
        setProblem(null);
      },
      (err) => alive && setProblem(problemText(err)),
    );
    return () => {
      alive = false;
    };
  }, [props.yardId, bucket, props.version]);
  return (
    <section class="panel figure movements" aria-labelledby="movements-heading">
      <div class="panel-head">
        <h2 id="movements-heading">Gate movements</h2>
        <fieldset class="range-switch">
          <legend class="visually-hidden">Time range</legend>
          {RANGES.map((r) => (
            <label key={r.bucket}>
              <input
                type="radio"
                name="movement-range"
                value={r.bucket}
                checked={bucket === r.bucket}
                onChange={() => setBucket(r.bucket)}
              />{' '}
              {r.label}
            </label>
          ))}
        </fieldset>
      </div>
      <p class="muted small-note">
        Times in the yard's time zone ({props.timeZone}). In: solid line; out: dashed.
      </p>
      {problem && <p class="retry-bad">The movements could not be read: {problem}</p>}
      {!m && !problem && <p class="muted">Loading the movements…</p>}
      {m && <MovementChart m={m} timeZone={props.timeZone} />}
    </section>
  );
}
