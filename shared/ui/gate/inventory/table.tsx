import { canCreateTasks, canWorkGate, session } from '../../common/auth';
import { LOAD_LABEL, taskLabel } from '../../common/inventory/labels';
import { type InventoryRow, nextSort, type Sort, type SortKey } from '../../common/inventory/rows';
import { duration, yardDateTime, yardTime } from '../../common/time';
import { timeZone } from '../yard';

const COLUMNS: Array<{ key: SortKey | null; label: string }> = [
  { key: null, label: 'Trailer' },
  { key: 'carrier', label: 'Carrier' },
  { key: 'spot', label: 'Spot' },
  { key: 'load', label: 'Load' },
  { key: null, label: 'Seal' },
  { key: 'dwell', label: 'Dwell' },
  { key: null, label: 'Requests' },
  { key: null, label: 'Actions' },
];

/** The trailers in the yard; the column headers sort (aria-sort says how), found rows are marked. */
export function InventoryTable(props: {
  rows: InventoryRow[];
  sort: Sort;
  onSort: (s: Sort) => void;
  found: Set<string>;
  placeName: (id: string | null) => string;
  onMove: (row: InventoryRow) => void;
}) {
  const role = session.principal.value?.role;
  const tz = timeZone.value;
  return (
    <table class="inventory">
      <caption class="visually-hidden">Trailers in the yard</caption>
      <thead>
        <tr>
          {COLUMNS.map((c) => {
            const key = c.key;
            if (!key)
              return (
                <th key={c.label} scope="col">
                  {c.label}
                </th>
              );
            const active = props.sort.key === key;
            return (
              <th
                key={c.label}
                scope="col"
                aria-sort={active ? (props.sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
              >
                <button type="button" class="sort" onClick={() => props.onSort(nextSort(props.sort, key))}>
                  {c.label}
                  <span aria-hidden="true">{active ? (props.sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                </button>
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((r) => (
          <tr
            key={r.id}
            id={`trailer-${r.id}`}
            class={props.found.has(r.id) ? 'found' : undefined}
            tabIndex={-1}
          >
            <th scope="row">{r.number}</th>
            <td>{r.carrier || <span class="muted">none</span>}</td>
            <td>{r.spot || <span class="muted">no spot</span>}</td>
            <td>
              <span class={`badge load-${r.loadStatus}`}>{LOAD_LABEL[r.loadStatus]}</span>
            </td>
            <td>{r.sealNumber ?? <span class="muted">none</span>}</td>
            <td title={r.arrivedAt ? `In since ${yardDateTime(r.arrivedAt, tz)}` : undefined}>
              {duration(r.dwellMs)}
              {r.arrivedAt && <small class="muted since">since {yardTime(r.arrivedAt, tz)}</small>}
            </td>
            <td>
              {r.tasks.length === 0 ? (
                <span class="muted">none</span>
              ) : (
                <ul class="requests">
                  {r.tasks.map((t) => (
                    <li key={t.id}>{taskLabel(t, props.placeName)}</li>
                  ))}
                </ul>
              )}
            </td>
            <td class="actions">
              {canCreateTasks(role) && (
                <button type="button" onClick={() => props.onMove(r)} aria-label={`Move ${r.number}`}>
                  Move
                </button>
              )}
              {canWorkGate(role) && (
                <a
                  class="button"
                  href={`/gate/check-out?trailer=${r.id}`}
                  aria-label={`Check out ${r.number}`}
                >
                  Check out
                </a>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
