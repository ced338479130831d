import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { problemText } from '../../common/api/problem-text';
import { loadAllYards, type YardRow } from './data';
import { count, percent } from './occupancy';

/** One row per yard the user may see (shown when there are several): a glance before choosing one. */
export function AllYards(props: {
  yards: Schemas['Yard'][];
  chosen: string;
  version: number;
  onChoose: (id: string) => void;
}) {
  const [rows, setRows] = useState<YardRow[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let alive = true;
    loadAllYards(props.yards).then(
      (r) => {
        if (!alive) return;
        setRows(r);
        setProblem(null);
      },
      (err) => alive && setProblem(problemText(err)),
    );
    return () => {
      alive = false;
    };
  }, [props.yards, props.version]);
  return (
    <section class="panel figure all-yards" aria-labelledby="all-yards-heading">
      <h2 id="all-yards-heading">All yards</h2>
      {problem && <p class="retry-bad">The yards' figures could not be read: {problem}</p>}
      {!rows && !problem && <p class="muted">Loading…</p>}
      {rows && (
        <table>
          <caption class="visually-hidden">
            Every yard's trailers, occupancy, movements today and open tasks
          </caption>
          <thead>
            <tr>
              <th scope="col">Yard</th>
              <th scope="col" class="num">
                Trailers in yard
              </th>
              <th scope="col" class="num">
                Occupancy
              </th>
              <th scope="col" class="num">
                Movements today
              </th>
              <th scope="col" class="num">
                Open tasks
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.yard.id} class={r.yard.id === props.chosen ? 'chosen' : ''}>
                <th scope="row">
                  <button type="button" class="link-button" onClick={() => props.onChoose(r.yard.id)}>
                    {r.yard.name} ({r.yard.code})
                  </button>
                </th>
                <td class="num">{count.format(r.trailersInYard)}</td>
                <td class="num">
                  {r.yard.capacity ? (
                    percent.format(r.trailersInYard / r.yard.capacity)
                  ) : (
                    <span class="muted">no capacity set</span>
                  )}
                </td>
                <td class="num">{count.format(r.movementsToday)}</td>
                <td class="num">{count.format(r.openTasks)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="muted small-note">Occupancy here: trailers against the yard record's trailer spaces.</p>
    </section>
  );
}
