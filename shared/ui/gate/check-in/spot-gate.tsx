import { useEffect, useRef, useState } from 'preact/hooks';
import type { Schemas } from '../../common/api/client';
import { describedBy, Field } from '../../common/components/field';
import type { FormState } from '../../common/form-state';
import { onLive } from '../../common/live';
import { gates } from '../yard';
import { loadFreeSpots } from './data';
import type { CheckInValues } from './model';

type Location = Schemas['Location'];

/**
 * The yard's free spots (active, with room, none promised to a yard task), by name; reloaded when
 * a check-in at any desk or a finished move changes the yard (live events, no polling).
 */
export function useFreeSpots(yardId: string): {
  spots: Location[];
  loaded: boolean;
  failed: boolean;
  /** This desk just filled the spot: drop it now, before the live event reloads the list. */
  drop: (id: string) => void;
} {
  const [state, setState] = useState({ spots: [] as Location[], loaded: false, failed: false });
  const drop = (id: string) => setState((s) => ({ ...s, spots: s.spots.filter((l) => l.id !== id) }));
  useEffect(() => {
    let alive = true;
    const load = () =>
      loadFreeSpots(yardId).then(
        (spots) => alive && setState({ spots, loaded: true, failed: false }),
        () => alive && setState((s) => ({ ...s, loaded: true, failed: true })),
      );
    load();
    const off = onLive(['movement.created', 'task.'], load, load);
    return () => {
      alive = false;
      off();
    };
  }, [yardId]);
  return { ...state, drop };
}

type Door = { id: string; name: string; free: boolean } | null;

/**
 * The suggested spot: the first free one, unless the clerk chose (or a matched appointment's free
 * door was suggested); a chosen spot another desk took meanwhile gives way to the next suggestion,
 * and the clerk is told (`onTaken`). Returns the name of a spot or door id, for the confirmation.
 */
export function useSuggestedSpot(
  free: ReturnType<typeof useFreeSpots>,
  form: { values: { locationId: string }; touched: { locationId?: true } },
  setForm: (f: (s: FormState<CheckInValues>) => FormState<CheckInValues>) => void,
  door: Door,
  onTaken: (name: string) => void,
): (id: string) => string | undefined {
  const spotName = (id: string) =>
    free.spots.find((s) => s.id === id)?.name ?? (door?.free && id === door.id ? door.name : undefined);
  const locationId = form.values.locationId;
  const put = (id: string) => setForm((f) => ({ ...f, values: { ...f.values, locationId: id } }));
  const lastSpotName = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!free.loaded) return;
    if (locationId && !spotName(locationId)) {
      onTaken(lastSpotName.current ?? 'The chosen spot');
      put(free.spots[0]?.id ?? '');
    } else if (!locationId && !form.touched.locationId && free.spots[0]) {
      put(free.spots[0].id);
    }
    lastSpotName.current = spotName(locationId);
  }, [free.spots, free.loaded, locationId]);
  return spotName;
}

export function SpotField(props: {
  value: string;
  error: string | undefined;
  spots: Location[];
  failed: boolean;
  /** A spot chosen earlier that another desk has since taken (then the suggestion moved on). */
  taken: string | null;
  /** The matched appointment's door (docs/domain.md "At the gate"): offered first when it had room. */
  door?: Door | undefined;
  onChange: (id: string) => void;
}) {
  const door = props.door;
  const hint = door
    ? door.free
      ? props.value === door.id
        ? `The appointment's door is suggested; choose a spot to park the trailer instead.`
        : `${door.name} (the appointment's door) is free; the trailer can go there.`
      : `${door.name} (the appointment's door) is occupied: park the trailer on a spot for now.`
    : props.failed
      ? 'The free spots could not be loaded; choose none and place the trailer later.'
      : props.taken
        ? `${props.taken} was just taken at another desk: the next free spot is suggested.`
        : props.spots.length === 0
          ? 'No free spot: check in without one and place the trailer later.'
          : `${props.spots.length} free spot${props.spots.length === 1 ? '' : 's'}; the first is suggested.`;
  return (
    <Field id="ci-spot" label="Spot" error={props.error} hint={hint}>
      <select
        {...describedBy('ci-spot', props.error, true)}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        <option value="">No spot (place later)</option>
        {door?.free && (
          <option value={door.id}>
            {door.name} (booked{props.value === door.id ? ', suggested' : ''})
          </option>
        )}
        {props.spots.map((s, i) => (
          <option key={s.id} value={s.id}>
            {s.name}
            {i === 0 && !door?.free ? ' (suggested)' : ''}
          </option>
        ))}
      </select>
    </Field>
  );
}

const GATE_KEY = 'yard.gate.checkInGateId';

/** The gate this desk opens on check-in (remembered per browser); inbound or two-way gates only. */
export function useDeskGate(): [string, (id: string) => void, Schemas['Gate'][]] {
  const inbound = gates.value.filter((g) => g.direction !== 'out');
  const [chosen, setChosen] = useState(() => localStorage.getItem(GATE_KEY) ?? '');
  const valid =
    chosen === 'none' || inbound.some((g) => g.id === chosen) ? chosen : (inbound[0]?.id ?? 'none');
  const choose = (id: string) => {
    setChosen(id);
    localStorage.setItem(GATE_KEY, id);
  };
  return [valid, choose, inbound];
}

export function GateField(props: {
  value: string;
  gates: Schemas['Gate'][];
  error: string | undefined;
  onChange: (id: string) => void;
}) {
  return (
    <Field
      id="ci-gate"
      label="Gate"
      error={props.error}
      hint={
        props.value === 'none'
          ? 'No gate: the movement is recorded, no gate opens, no picture is taken.'
          : undefined
      }
    >
      <select
        {...describedBy('ci-gate', props.error, props.value === 'none')}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        {props.gates.map((g) => (
          <option key={g.id} value={g.id}>
            {g.name}
            {g.relay?.driver === 'simulated' ? ' (simulated)' : ''}
          </option>
        ))}
        <option value="none">No gate (record only)</option>
      </select>
    </Field>
  );
}
