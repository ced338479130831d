import { LOAD_LABEL } from '../../common/inventory/labels';
import { duration } from '../../common/time';
import { BAND_LABEL, KIND_LABEL, type Occupancy } from './occupancy';
import type { Location } from './plan';

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/**
 * The map as a table: every location with what stands on it and whether it is on the plan. For
 * screen readers and for anyone who wants the list; folded away under the map.
 */
export function LocationTable(props: {
  locations: Location[];
  occupancy: Map<string, Occupancy>;
  placed: Set<string>;
}) {
  const sorted = [...props.locations].sort((a, b) => collator.compare(a.name, b.name));
  return (
    <details class="map-table">
      <summary>The locations as a table ({sorted.length})</summary>
      <table class="data">
        <caption>Locations of the yard and the trailers on them</caption>
        <thead>
          <tr>
            <th scope="col">Location</th>
            <th scope="col">Kind</th>
            <th scope="col">State</th>
            <th scope="col">Trailers</th>
            <th scope="col">On the plan</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((l) => {
            const o = props.occupancy.get(l.id);
            return (
              <tr key={l.id}>
                <th scope="row">{l.name}</th>
                <td>{KIND_LABEL[l.kind]}</td>
                <td>
                  {l.status === 'inactive' ? 'Inactive, ' : ''}
                  {l.kind === 'zone' ? 'Area' : BAND_LABEL[o?.band ?? 'empty']}
                </td>
                <td>
                  {o
                    ? o.trailers.map((t) => (
                        <div key={t.id}>
                          {t.number}
                          {t.carrier ? `, ${t.carrier}` : ''}, {LOAD_LABEL[t.loadStatus].toLowerCase()},{' '}
                          {duration(t.dwellMs)}
                        </div>
                      ))
                    : '—'}
                </td>
                <td>{props.placed.has(l.id) ? 'Yes' : 'Not placed'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </details>
  );
}
