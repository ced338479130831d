import type { Schemas } from '../../common/api/client';
import { LOAD_LABEL } from '../../common/inventory/labels';
import { carrierLabel } from '../../common/inventory/rows';
import { duration } from '../../common/time';
import type { TrailerFigures } from './data';
import { count, type Occupancy, percent } from './occupancy';

/** Trailers in the yard against its capacity, and places in use. */
export function OccupancyPanel(props: { o: Occupancy; averageDwellMs: number | null }) {
  const { o } = props;
  const share = o.capacity > 0 ? o.trailers / o.capacity : null;
  return (
    <section class="panel figure" aria-labelledby="occupancy-heading">
      <h2 id="occupancy-heading">Occupancy</h2>
      <p class="big-figure" data-figure="trailers-in-yard">
        {count.format(o.trailers)}
        <span class="of"> of {count.format(o.capacity)} trailer spaces</span>
      </p>
      {share !== null && (
        <div class="meter" role="img" aria-label={`${percent.format(share)} full`}>
          <div
            class={share >= 0.9 ? 'fill high' : 'fill'}
            style={{ width: `${Math.min(100, share * 100)}%` }}
          />
        </div>
      )}
      <p>
        {share !== null ? `${percent.format(share)} full. ` : 'No capacity is set. '}
        <span class="muted">
          {o.capacitySource === 'yard'
            ? "Capacity: the yard record's trailer spaces."
            : 'Capacity: the active spots, doors and staging lanes, each counted with its own capacity.'}
        </span>
      </p>
      {o.places === 0 ? (
        <p>No spots, doors or staging lanes are set up for this yard: add them under Master data.</p>
      ) : (
        <p>
          Places in use: {count.format(o.placesInUse)} of {count.format(o.places)} spots, doors and staging
          lanes
          {o.unplaced > 0 && (
            <>
              {' '}
              · {count.format(o.unplaced)} {o.unplaced === 1 ? 'trailer' : 'trailers'} on no place
            </>
          )}
        </p>
      )}
      {props.averageDwellMs !== null && <p>Average dwell: {duration(props.averageDwellMs)}</p>}
    </section>
  );
}

/** A labelled horizontal bar per row, with the number beside it (a table, so it reads as one). */
function BarTable(props: { caption: string; head: string; rows: { label: string; n: number }[] }) {
  const max = Math.max(1, ...props.rows.map((r) => r.n));
  return (
    <table class="bar-table">
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">{props.head}</th>
          <th scope="col" class="num">
            Trailers
          </th>
          <th scope="col">
            <span class="visually-hidden">Share</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((r) => (
          <tr key={r.label}>
            <th scope="row">{r.label}</th>
            <td class="num">{count.format(r.n)}</td>
            <td class="bar-cell" aria-hidden="true">
              <span class="bar" style={{ width: `${(r.n / max) * 100}%` }} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function LoadAndCarrier(props: { f: TrailerFigures | null; carriers: Schemas['Carrier'][] }) {
  if (!props.f || props.f.trailersInYard === 0) {
    return (
      <section class="panel figure">
        <h2>Trailers by load and carrier</h2>
        <p>No trailer is in the yard. Check-ins at the gate show here as they happen.</p>
      </section>
    );
  }
  const f = props.f;
  const byId = new Map(props.carriers.map((c) => [c.id, c]));
  const loads = (['loaded', 'empty', 'unknown'] as const).map((k) => ({
    label: LOAD_LABEL[k],
    n: f.byLoadStatus[k],
  }));
  const carriers = [...f.byCarrier]
    .sort((a, b) => b.count - a.count)
    .map((c) => ({
      label: (c.carrierId && carrierLabel(byId.get(c.carrierId))) || c.carrierName || 'No carrier',
      n: c.count,
    }));
  return (
    <section class="panel figure load-carrier" aria-labelledby="load-carrier-heading">
      <h2 id="load-carrier-heading">Trailers by load and carrier</h2>
      <BarTable caption="By load status" head="Load" rows={loads} />
      <BarTable caption="By carrier" head="Carrier" rows={carriers} />
    </section>
  );
}
