import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { problemText } from '../../common/api/problem-text';
import { FormMessage } from '../../common/components/field';
import { LOAD_LABEL, taskLabel } from '../../common/inventory/labels';
import {
  buildRows,
  carrierLabel,
  DEFAULT_SORT,
  type Filters,
  filterRows,
  type InventoryRow,
  type LoadStatus,
  sortRows,
} from '../../common/inventory/rows';
import { onLive } from '../../common/live';
import { loadYardPicture, type YardPicture } from '../inventory/data';
import { freeLocations } from '../inventory/free-locations';
import { MoveDialog } from '../inventory/move-dialog';
import { InventoryTable } from '../inventory/table';
import { WhereIsIt } from '../inventory/where-is-it';
import '../inventory/inventory.css';
import { yard } from '../yard';

/**
 * Yard inventory: the trailers in the yard by spot, carrier, load status and dwell (oldest first),
 * "where is it?", and move requests. Kept current by live events (a check-in at another desk, a
 * completed move), reloaded after a reconnect; never polled.
 */
export function Inventory() {
  const yardId = yard.value!.id;
  const [data, setData] = useState<YardPicture | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [now, setNow] = useState(Date.now());
  const [sort, setSort] = useState(DEFAULT_SORT);
  const [filters, setFilters] = useState<Filters>({ carrierId: '', loadStatus: '' });
  const [found, setFound] = useState<Set<string>>(new Set());
  const [moving, setMoving] = useState<InventoryRow | null>(null);
  const [created, setCreated] = useState<string | null>(null);

  const reload = useCallback(() => {
    loadYardPicture(yardId).then(
      (d) => {
        setData(d);
        setNow(Date.now());
        setProblem(null);
      },
      (err) => setProblem(problemText(err)),
    );
  }, [yardId]);
  useEffect(() => {
    reload();
    const off = onLive(['movement.created', 'task.', 'sync.applied'], reload, reload);
    // Dwell grows while the screen is open: re-render each minute (no request).
    const tick = setInterval(() => setNow(Date.now()), 60_000);
    return () => {
      off();
      clearInterval(tick);
    };
  }, [reload]);

  const rows = useMemo(
    () => (data ? buildRows(data.trailers, data.carriers, data.locations, data.tasks, now) : []),
    [data, now],
  );
  const shown = useMemo(() => sortRows(filterRows(rows, filters), sort), [rows, filters, sort]);
  const placeName = useCallback(
    (id: string | null) => data?.locations.find((l) => l.id === id)?.name ?? 'a place',
    [data],
  );
  const carriersHere = useMemo(() => {
    const ids = new Set(rows.map((r) => r.carrierId));
    return (data?.carriers ?? []).filter((c) => ids.has(c.id));
  }, [rows, data]);

  const moveCreated = (task: Schemas['YardTask']) => {
    setMoving(null);
    const number = rows.find((r) => r.id === task.trailerId)?.number ?? 'the trailer';
    setCreated(`Move request for ${number} created: ${taskLabel(task, placeName)}.`);
    reload();
  };

  return (
    <section class="inventory-screen" aria-labelledby="inventory-heading">
      <div class="inventory-head">
        <h1 id="inventory-heading">
          Yard inventory <span class="muted count">{data ? `${rows.length} trailers in the yard` : ''}</span>
        </h1>
        <WhereIsIt rows={rows} yardId={yardId} onFound={(ids) => setFound(new Set(ids))} />
      </div>
      {problem && (
        <FormMessage kind="error">
          The yard could not be loaded: {problem} It reloads by itself when the connection is back.
        </FormMessage>
      )}
      {created && <FormMessage kind="ok">{created}</FormMessage>}
      <fieldset class="filters">
        <legend class="visually-hidden">Filters</legend>
        <label>
          Carrier{' '}
          <select
            value={filters.carrierId}
            onChange={(e) => setFilters({ ...filters, carrierId: e.currentTarget.value })}
          >
            <option value="">All carriers</option>
            {carriersHere.map((c) => (
              <option key={c.id} value={c.id}>
                {carrierLabel(c)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Load{' '}
          <select
            value={filters.loadStatus}
            onChange={(e) => setFilters({ ...filters, loadStatus: e.currentTarget.value as LoadStatus | '' })}
          >
            <option value="">Any load</option>
            {(Object.keys(LOAD_LABEL) as LoadStatus[]).map((s) => (
              <option key={s} value={s}>
                {LOAD_LABEL[s]}
              </option>
            ))}
          </select>
        </label>
        {shown.length !== rows.length && (
          <span class="muted">
            Showing {shown.length} of {rows.length}
          </span>
        )}
      </fieldset>
      {!data && !problem && <p class="muted">Loading the trailers in the yard…</p>}
      {data && rows.length === 0 && <p>No trailer is in the yard. Check-ins appear here as they happen.</p>}
      {data && rows.length > 0 && shown.length === 0 && <p>No trailer matches these filters.</p>}
      {shown.length > 0 && (
        <InventoryTable
          rows={shown}
          sort={sort}
          onSort={setSort}
          found={found}
          placeName={placeName}
          onMove={(r) => {
            setCreated(null);
            setMoving(r);
          }}
        />
      )}
      {moving && data && (
        <MoveDialog
          row={moving}
          yardId={yardId}
          free={freeLocations(data.locations, data.trailers, data.tasks, moving.locationId)}
          onClose={() => setMoving(null)}
          onCreated={moveCreated}
        />
      )}
    </section>
  );
}
