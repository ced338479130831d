import { LOAD_LABEL } from '../../common/inventory/labels';
import type { InventoryRow } from '../../common/inventory/rows';
import { duration, yardDateTime, yardTime } from '../../common/time';

/** The trailers in the yard longest (top 20), with where they stand and whose they are. */
export function DwellTable(props: { rows: InventoryRow[]; total: number; timeZone: string; now: number }) {
  return (
    <section class="panel figure dwell" aria-labelledby="dwell-heading">
      <h2 id="dwell-heading">Longest in the yard</h2>
      {props.rows.length === 0 ? (
        <p>No trailer is in the yard. Check-ins at the gate show here as they happen.</p>
      ) : (
        <table class="dwell-table">
          <caption class="visually-hidden">
            The {props.rows.length} trailers in the yard longest of {props.total}, longest dwell first
          </caption>
          <thead>
            <tr>
              <th scope="col">Trailer</th>
              <th scope="col" class="num">
                Dwell
              </th>
              <th scope="col">Arrived</th>
              <th scope="col">Spot</th>
              <th scope="col">Carrier</th>
              <th scope="col">Load</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((r) => (
              <tr key={r.id}>
                <th scope="row">{r.number}</th>
                <td class="num">{r.arrivedAt ? duration(r.dwellMs) : '—'}</td>
                <td title={yardDateTime(r.arrivedAt, props.timeZone)}>
                  {yardTime(r.arrivedAt, props.timeZone, props.now)}
                </td>
                <td>{r.spot || <span class="muted">no spot</span>}</td>
                <td>{r.carrier || <span class="muted">none</span>}</td>
                <td>{LOAD_LABEL[r.loadStatus]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {props.total > props.rows.length && (
        <p class="muted">
          {props.total - props.rows.length} more trailers have been here less long: the gate app's inventory
          lists them all.
        </p>
      )}
    </section>
  );
}
