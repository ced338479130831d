import { useRef, useState } from 'preact/hooks';
import { layoutLabels, type TextSpot } from './labels';
import { BAND_LABEL, type Band, KIND_LABEL, locationSummary, type Occupancy } from './occupancy';
import { type Box, DRAW_ORDER, type Location, normalise, type Plan, rotateAbout } from './plan';
import { Tooltip } from './tooltip';

export interface Placed {
  location: Location;
  plan: Plan;
}

interface Drag {
  id: string;
  pointerId: number;
  from: { x: number; y: number };
  start: Plan;
  moved: boolean;
}

/** Arrow keys move the selected location this far (metres); with Shift ten times as far. */
const STEP = 0.5;

/**
 * The yard plan as SVG: every placed location as a rectangle turned by its rotation, zones behind,
 * coloured and patterned by how long its trailers have stood there, with the trailer number on it.
 * Each location is focusable and tells what stands on it (hover or focus shows the details).
 * In edit mode a location is selected by click or Enter, dragged or moved with the arrow keys, and
 * a click on the plan places the location being placed.
 */
export function YardPlan(props: {
  placed: Placed[];
  occupancy: Map<string, Occupancy>;
  bounds: Box;
  editing: boolean;
  selectedId: string | null;
  placing: Location | null;
  timeZone: string;
  onSelect: (id: string | null) => void;
  /** A new plan, or a change of the latest one (an updater). */
  onMove: (id: string, plan: Plan | ((current: Plan) => Plan)) => void;
  onPlaceAt: (x: number, y: number) => void;
}) {
  const svg = useRef<SVGSVGElement>(null);
  const frame = useRef<HTMLDivElement>(null);
  const drag = useRef<Drag | null>(null);
  const [pointed, setPointed] = useState<{ id: string; by: 'hover' | 'focus' } | null>(null);

  /** A pointer's position in plan metres. */
  const toPlan = (e: PointerEvent | MouseEvent) => {
    const m = svg.current?.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    return { x: p.x, y: p.y };
  };

  const onPointerDown = (e: PointerEvent, item: Placed) => {
    if (!props.editing || props.placing || e.button !== 0) return;
    const at = toPlan(e);
    if (!at) return;
    // No text selection or native drag; the focus goes to the location, for the arrow keys.
    e.preventDefault();
    (e.currentTarget as SVGGElement | null)?.focus();
    props.onSelect(item.location.id);
    drag.current = { id: item.location.id, pointerId: e.pointerId, from: at, start: item.plan, moved: false };
    svg.current?.setPointerCapture(e.pointerId);
  };
  const onPointerMove = (e: PointerEvent) => {
    const d = drag.current;
    if (!d || d.pointerId !== e.pointerId) return;
    const at = toPlan(e);
    if (!at) return;
    d.moved = true;
    props.onMove(
      d.id,
      normalise({ ...d.start, x: d.start.x + at.x - d.from.x, y: d.start.y + at.y - d.from.y }),
    );
  };
  const endDrag = (e: PointerEvent) => {
    if (drag.current?.pointerId === e.pointerId) drag.current = null;
  };
  const onPlanClick = (e: MouseEvent) => {
    if (!props.editing || !props.placing) return;
    const at = toPlan(e);
    if (at) props.onPlaceAt(at.x, at.y);
  };
  const onKeyDown = (e: KeyboardEvent, item: Placed) => {
    if (!props.editing) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      props.onSelect(item.location.id);
      return;
    }
    const step = e.shiftKey ? STEP * 10 : STEP;
    const delta: Record<string, [number, number]> = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, -step],
      ArrowDown: [0, step],
    };
    const move = delta[e.key];
    if (!move) return;
    e.preventDefault();
    // The keyboard's focus is its selection: arrows move the focused place, selected or not yet.
    if (props.selectedId !== item.location.id) props.onSelect(item.location.id);
    // From the latest draft, not this render's: key repeat can outrun the re-render.
    props.onMove(item.location.id, (plan) =>
      normalise({ ...plan, x: plan.x + move[0], y: plan.y + move[1] }),
    );
  };

  const ordered = [...props.placed].sort(
    (a, b) =>
      DRAW_ORDER[a.location.kind] - DRAW_ORDER[b.location.kind] ||
      a.location.name.localeCompare(b.location.name, undefined, { numeric: true }),
  );
  const { x, y, width, height } = props.bounds;
  const shown = pointed ? props.placed.find((p) => p.location.id === pointed.id) : undefined;
  return (
    <div class={`plan-frame${props.placing ? ' placing' : ''}`} ref={frame}>
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: a click places the chosen location where it lands; from the keyboard "Put it in the middle" and the arrow keys do it */}
      <svg
        ref={svg}
        class="yard-plan"
        viewBox={`${x} ${y} ${width} ${height}`}
        aria-label={`Yard plan, ${props.placed.length} placed locations${props.editing ? ', editing' : ''}`}
        onPointerMove={onPointerMove}
        onPointerUp={endDrag}
        onPointerCancel={endDrag}
        onClick={onPlanClick}
      >
        <Patterns />
        <rect class="ground" x={x} y={y} width={width} height={height} />
        {ordered.map((item) => (
          <LocationShape
            key={item.location.id}
            item={item}
            occupancy={props.occupancy.get(item.location.id)}
            editing={props.editing}
            selected={props.selectedId === item.location.id}
            onPointerDown={(e) => onPointerDown(e, item)}
            onKeyDown={(e) => onKeyDown(e, item)}
            onPoint={(by) => setPointed(by ? { id: item.location.id, by } : null)}
          />
        ))}
      </svg>
      {shown && frame.current && !drag.current && (
        <Tooltip
          frame={frame.current}
          anchor={frame.current.querySelector(`[data-id="${shown.location.id}"]`)}
          location={shown.location}
          occupancy={props.occupancy.get(shown.location.id)}
          timeZone={props.timeZone}
        />
      )}
    </div>
  );
}

function LocationShape(props: {
  item: Placed;
  occupancy: Occupancy | undefined;
  editing: boolean;
  selected: boolean;
  onPointerDown: (e: PointerEvent) => void;
  onKeyDown: (e: KeyboardEvent) => void;
  onPoint: (by: 'hover' | 'focus' | null) => void;
}) {
  const { location, plan } = props.item;
  const band: Band = props.occupancy?.band ?? 'empty';
  const first = props.occupancy?.trailers[0];
  const more = (props.occupancy?.trailers.length ?? 0) - 1;
  const trailerText = first ? `${first.number}${more > 0 ? ` +${more}` : ''}` : null;
  const zone = location.kind === 'zone';
  const labels = layoutLabels(plan, location.name, zone ? null : trailerText, zone);
  const summary = locationSummary(location.name, KIND_LABEL[location.kind], props.occupancy);
  const inactive = location.status === 'inactive' ? ' (inactive)' : '';
  const classes = [
    'loc',
    `kind-${location.kind}`,
    zone ? 'band-zone' : `band-${band}`,
    location.status === 'inactive' ? 'inactive' : '',
    props.selected ? 'selected' : '',
  ].join(' ');
  return (
    // An SVG shape cannot be a <button>: it takes the role (img to read, button to edit) and keys of one.
    // biome-ignore lint/a11y/noStaticElementInteractions: the role is set, per mode, below
    // biome-ignore lint/a11y/useAriaPropsSupportedByRole: aria-pressed is only set with role button
    <g
      class={classes}
      data-id={location.id}
      data-name={location.name}
      transform={rotateAbout(plan)}
      tabIndex={0}
      role={props.editing ? 'button' : 'img'}
      aria-label={`${summary}${inactive}${zone ? '' : `. ${BAND_LABEL[band]}`}`}
      aria-pressed={props.editing ? props.selected : undefined}
      onPointerDown={props.onPointerDown}
      onKeyDown={props.onKeyDown}
      onPointerEnter={() => props.onPoint('hover')}
      onPointerLeave={() => props.onPoint(null)}
      onFocus={() => props.onPoint('focus')}
      onBlur={() => props.onPoint(null)}
    >
      <rect class="shape" x={plan.x} y={plan.y} width={plan.width} height={plan.height} />
      {!zone && band !== 'empty' && (
        <rect
          class="pattern"
          x={plan.x}
          y={plan.y}
          width={plan.width}
          height={plan.height}
          fill={`url(#map-${band})`}
        />
      )}
      <Label spot={labels.name} class="name" text={location.name} />
      {labels.trailer && trailerText && <Label spot={labels.trailer} class="trailer" text={trailerText} />}
    </g>
  );
}

function Label(props: { spot: TextSpot; class: string; text: string }) {
  const { x, y, size, rotate, anchor } = props.spot;
  return (
    <text
      class={props.class}
      x={x}
      y={y}
      font-size={size}
      text-anchor={anchor}
      transform={rotate ? `rotate(${rotate} ${x} ${y})` : undefined}
    >
      {props.text}
    </text>
  );
}

/**
 * The dwell patterns, over the colour so the bands differ without colour too: under a day plain,
 * one to three days hatched, over three days cross-hatched. In plan metres.
 */
export function Patterns() {
  return (
    <defs>
      <pattern id="map-day" width="2" height="2" patternUnits="userSpaceOnUse">
        <circle cx="1" cy="1" r="0.18" class="pattern-ink" />
      </pattern>
      <pattern
        id="map-days"
        width="1.6"
        height="1.6"
        patternUnits="userSpaceOnUse"
        patternTransform="rotate(45)"
      >
        <line x1="0" y1="0" x2="0" y2="1.6" class="pattern-line" />
      </pattern>
      <pattern
        id="map-long"
        width="1.4"
        height="1.4"
        patternUnits="userSpaceOnUse"
        patternTransform="rotate(45)"
      >
        <line x1="0" y1="0" x2="0" y2="1.4" class="pattern-line" />
        <line x1="0" y1="0" x2="1.4" y2="0" class="pattern-line" />
      </pattern>
    </defs>
  );
}
