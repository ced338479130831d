import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { problemText } from '../../common/api/problem-text';
import { session } from '../../common/auth';
import { FormMessage } from '../../common/components/field';
import { buildRows } from '../../common/inventory/rows';
import { onLive } from '../../common/live';
import { useSubmit } from '../../common/use-submit';
import { may } from '../access';
import { loadMap, type MapData, type SaveFailure, saveDrafts } from '../map/data';
import { changedDrafts, type Draft } from '../map/drafts';
import { EditPanel } from '../map/edit-panel';
import { Legend } from '../map/legend';
import { LocationTable } from '../map/location-table';
import { occupancyByLocation } from '../map/occupancy';
import { type Location, type Plan, placedAt, planBounds } from '../map/plan';
import { Unplaced } from '../map/unplaced';
import { type Placed, YardPlan } from '../map/yard-plan';
import { ownership, timeZone, yard } from '../scope';
import '../map/map.css';

/** Live events come in bursts (a check-in is a movement and a sync batch): one reload per burst. */
const DEBOUNCE_MS = 400;
/** Extra room around the plan while editing, to place new locations beyond the drawn ones. */
const EDIT_MARGIN = 12;

/**
 * The yard map: the chosen yard's locations on its plan, coloured by occupancy and dwell, with the
 * trailer on each; those without a place listed beside it. Kept current by live events. Who may
 * edit locations places them ("Edit layout"): drafts stay in the browser until Save.
 */
export function YardMap() {
  const y = yard.value;
  if (!y) return <p>No yard is open to you. Ask an admin for a yard in your scope.</p>;
  return <MapScreen key={y.id} yardId={y.id} yardName={y.name} />;
}

function MapScreen(props: { yardId: string; yardName: string }) {
  const role = session.principal.value?.role;
  const readOnly = ownership.value.masterDataReadOnly;
  const mayEdit = may.editLocations(role) && !readOnly;
  const [data, setData] = useState<MapData | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [now, setNow] = useState(Date.now());
  const [editing, setEditing] = useState(false);
  const [drafts, setDrafts] = useState<Map<string, Draft>>(new Map());
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [placing, setPlacing] = useState<Location | null>(null);
  const [failures, setFailures] = useState<SaveFailure[]>([]);
  const [savedNote, setSavedNote] = useState<string | null>(null);

  const reload = useCallback(() => {
    return loadMap(props.yardId).then(
      (d) => {
        setData(d);
        setNow(Date.now());
        setProblem(null);
      },
      (err) => setProblem(problemText(err)),
    );
  }, [props.yardId]);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    reload();
    const soon = () => {
      clearTimeout(timer.current);
      timer.current = setTimeout(reload, DEBOUNCE_MS);
    };
    const off = onLive(['movement.created', 'task.completed', 'sync.applied'], soon, soon);
    // Dwell grows while the screen is open: redraw each minute (no request).
    const tick = setInterval(() => setNow(Date.now()), 60_000);
    return () => {
      off();
      clearTimeout(timer.current);
      clearInterval(tick);
    };
  }, [reload]);

  const locations = data?.locations ?? [];
  const occupancy = useMemo(
    () => occupancyByLocation(data ? buildRows(data.trailers, data.carriers, data.locations, [], now) : []),
    [data, now],
  );
  const planOf = (l: Location): Plan | null => (drafts.has(l.id) ? drafts.get(l.id)!.plan : l.plan);
  const placed: Placed[] = locations.flatMap((l) => {
    const plan = planOf(l);
    return plan ? [{ location: l, plan }] : [];
  });
  const unplaced = locations.filter((l) => planOf(l) === null);
  // While editing the frame stays put (a drag must not move the plan under the pointer).
  const storedBounds = useMemo(() => planBounds(locations.flatMap((l) => (l.plan ? [l.plan] : []))), [data]);
  const bounds = editing
    ? {
        x: storedBounds.x - EDIT_MARGIN,
        y: storedBounds.y - EDIT_MARGIN,
        width: storedBounds.width + 2 * EDIT_MARGIN,
        height: storedBounds.height + 2 * EDIT_MARGIN,
      }
    : storedBounds;
  const changes = data ? changedDrafts(drafts, data.locations) : [];
  const selected = placed.find((p) => p.location.id === selectedId);

  /**
   * A new plan for a location, or a change of its current one (arrow keys): the change applies to
   * the latest draft, so quick key presses before a re-render each count.
   */
  const setDraft = (id: string, plan: Plan | null | ((current: Plan) => Plan)) => {
    const location = locations.find((l) => l.id === id);
    if (!location) return;
    setDrafts((current) => {
      const before = current.has(id) ? (current.get(id)?.plan ?? null) : (location.plan ?? null);
      const after = typeof plan === 'function' ? (before ? plan(before) : null) : plan;
      const next = new Map(current);
      next.set(id, { plan: after, version: current.get(id)?.version ?? location.version });
      return next;
    });
    if (plan === null && selectedId === id) setSelectedId(null);
  };
  const placeAt = (x: number, y: number) => {
    if (!placing) return;
    const id = placing.id;
    setDraft(id, placedAt(placing.kind, x, y));
    setSelectedId(id);
    setPlacing(null);
    // The "Place" button goes with the list entry: the focus follows the location onto the plan.
    requestAnimationFrame(() =>
      document.querySelector<SVGGElement>(`svg.yard-plan [data-id="${id}"]`)?.focus(),
    );
  };
  const startEditing = () => {
    setEditing(true);
    setFailures([]);
    setSavedNote(null);
  };
  const stopEditing = () => {
    setEditing(false);
    setDrafts(new Map());
    setSelectedId(null);
    setPlacing(null);
  };
  const saveLayout = useSubmit(async () => {
    const result = await saveDrafts(props.yardId, changes);
    await reload();
    return result;
  });
  const saving = saveLayout.busy;
  const save = async () => {
    const result = await saveLayout.run();
    if (!result) return;
    setFailures(result.failures);
    // What failed for a reason other than a newer version stays to be fixed; the rest is done.
    const keep = new Set(result.failures.filter((f) => !f.stale).map((f) => f.id));
    setDrafts((current) => new Map([...current].filter(([id]) => keep.has(id))));
    if (result.failures.length === 0) {
      setEditing(false);
      setSelectedId(null);
      setPlacing(null);
      setSavedNote(
        `Layout saved: ${result.saved.length} location${result.saved.length === 1 ? '' : 's'} changed.`,
      );
    }
  };

  return (
    <section class="map-screen" aria-labelledby="map-heading">
      <div class="map-head">
        <h1 id="map-heading">
          Yard map <span class="muted count">{props.yardName}</span>
        </h1>
        <div class="map-actions">
          {!editing && mayEdit && (
            <button type="button" onClick={startEditing} disabled={!data}>
              Edit layout
            </button>
          )}
          {editing && (
            <>
              <span class="muted" role="status">
                {changes.length === 0 ? 'No changes yet' : `${changes.length} unsaved`}
              </span>
              <button type="button" class="primary" onClick={save} disabled={saving || changes.length === 0}>
                {saving ? 'Saving…' : 'Save layout'}
              </button>
              <button type="button" onClick={stopEditing} disabled={saving}>
                Cancel
              </button>
            </>
          )}
        </div>
      </div>
      {readOnly && may.editLocations(role) && (
        <p class="read-only-note">Locations are managed in the cloud: change the layout there.</p>
      )}
      {problem && (
        <FormMessage kind="error">
          The map could not be loaded: {problem} It reloads by itself when the connection is back.
        </FormMessage>
      )}
      {savedNote && <FormMessage kind="ok">{savedNote}</FormMessage>}
      {failures.map((f) => (
        <FormMessage key={f.id} kind="error">
          {f.message}
        </FormMessage>
      ))}
      <Legend />
      {!data && !problem && <p class="muted">Loading the yard…</p>}
      {data && (
        <div class="map-body">
          <div class="map-main">
            {locations.length === 0 ? (
              <p>
                This yard has no locations yet. Add spots and doors under Master data, then place them here.
              </p>
            ) : placed.length === 0 && !editing ? (
              <p class="map-empty">
                None of this yard's locations is on the plan yet.{' '}
                {mayEdit
                  ? 'Choose "Edit layout", then place each spot, door and zone where it is in the yard.'
                  : 'An admin or dispatcher places them with "Edit layout".'}
              </p>
            ) : (
              <YardPlan
                placed={placed}
                occupancy={occupancy}
                bounds={bounds}
                editing={editing}
                selectedId={selectedId}
                placing={placing}
                timeZone={timeZone.value}
                onSelect={setSelectedId}
                onMove={setDraft}
                onPlaceAt={placeAt}
              />
            )}
            <LocationTable
              locations={locations}
              occupancy={occupancy}
              placed={new Set(placed.map((p) => p.location.id))}
            />
          </div>
          <aside class="map-side">
            {editing && selected && (
              <EditPanel
                location={selected.location}
                plan={selected.plan}
                onChange={(plan) => setDraft(selected.location.id, plan)}
                onDone={() => setSelectedId(null)}
              />
            )}
            {editing && !selected && !placing && (
              <p class="muted">Select a location on the plan to move it, resize or turn it.</p>
            )}
            <Unplaced
              locations={unplaced}
              editing={editing}
              mayEdit={mayEdit}
              placing={placing}
              onPlace={(l) => {
                setPlacing(l);
                setSelectedId(null);
              }}
              onCentre={() => placeAt(bounds.x + bounds.width / 2, bounds.y + bounds.height / 2)}
            />
          </aside>
        </div>
      )}
    </section>
  );
}
