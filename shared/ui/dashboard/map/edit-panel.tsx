import { useEffect, useState } from 'preact/hooks';
import { KIND_LABEL } from './occupancy';
import { BOUNDS, type Location, normalise, type Plan } from './plan';

type Field = keyof Plan;

const FIELDS: Array<{ key: Field; label: string; min: number; max: number; step: number }> = [
  { key: 'x', label: 'X (m east)', min: -BOUNDS.coordinate, max: BOUNDS.coordinate, step: 0.1 },
  { key: 'y', label: 'Y (m south)', min: -BOUNDS.coordinate, max: BOUNDS.coordinate, step: 0.1 },
  { key: 'width', label: 'Width (m)', min: 0.5, max: BOUNDS.size, step: 0.1 },
  { key: 'height', label: 'Length (m)', min: 0.5, max: BOUNDS.size, step: 0.1 },
  { key: 'rotation', label: 'Rotation (degrees)', min: 0, max: 359.9, step: 1 },
];

/**
 * The selected location's place as numbers: type a position, size or rotation (applied as you
 * type a valid number), or take it off the plan.
 */
export function EditPanel(props: {
  location: Location;
  plan: Plan;
  onChange: (plan: Plan | null) => void;
  onDone: () => void;
}) {
  const [text, setText] = useState<Record<Field, string>>(asText(props.plan));
  // A drag or an arrow key moves the location: show its new numbers (a field whose text already
  // means that number keeps it, so "12." stays while 12.5 is being typed).
  useEffect(() => {
    setText((shown) => {
      const next = asText(props.plan);
      for (const f of FIELDS) if (Number(shown[f.key]) === props.plan[f.key]) next[f.key] = shown[f.key];
      return next;
    });
  }, [props.plan]);
  const change = (key: Field, value: string) => {
    setText({ ...text, [key]: value });
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) return;
    props.onChange(normalise({ ...props.plan, [key]: n }));
  };
  return (
    <section class="edit-panel" aria-labelledby="edit-heading">
      <h2 id="edit-heading">
        {props.location.name} <span class="muted">{KIND_LABEL[props.location.kind]}</span>
      </h2>
      <p class="muted">Drag it on the plan, or move it with the arrow keys (Shift: 5 m).</p>
      <div class="edit-fields">
        {FIELDS.map((f) => (
          <div class="field" key={f.key}>
            <label for={`plan-${f.key}`}>{f.label}</label>
            <input
              id={`plan-${f.key}`}
              type="number"
              inputMode="decimal"
              min={f.min}
              max={f.max}
              step={f.step}
              value={text[f.key]}
              onInput={(e) => change(f.key, e.currentTarget.value)}
            />
          </div>
        ))}
      </div>
      <div class="actions">
        <button type="button" onClick={() => props.onChange(null)}>
          Take off the plan
        </button>
        <button type="button" onClick={props.onDone}>
          Done with {props.location.name}
        </button>
      </div>
    </section>
  );
}

function asText(p: Plan): Record<Field, string> {
  return {
    x: String(p.x),
    y: String(p.y),
    width: String(p.width),
    height: String(p.height),
    rotation: String(p.rotation),
  };
}
