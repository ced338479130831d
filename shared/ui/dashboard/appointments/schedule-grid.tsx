import { useEffect, useRef, useState } from 'preact/hooks';
import type { Appointment, Door } from './schedule-data';
import {
  type Block,
  type Frame,
  keyMove,
  pointerSpot,
  ROW_PX,
  type Spot,
  verticalPlace,
} from './schedule-layout';
import { clock, isMovable, statusText } from './schedule-words';

/** A move being made: by keys (confirmed with Enter) or by dragging (confirmed by the drop). */
interface Moving {
  id: string;
  spot: Spot;
}

interface Drag {
  id: string;
  pointerId: number;
  startX: number;
  startY: number;
  top: number;
  left: number;
  dragging: boolean;
}

const DRAG_THRESHOLD_PX = 4;

/**
 * The day grid: a column per door, a row per slot, each appointment a block (a button) with its
 * time, carrier, code and status in words. A block is moved with the keyboard (arrows: a slot or
 * a door; Page Up/Down: an hour; Enter moves it there, Escape leaves it) or dragged with the
 * pointer; every step is announced. Activating a block without a move opens its details.
 */
export function ScheduleGrid(props: {
  frame: Frame;
  doors: Door[];
  blocks: Block<Appointment>[];
  mayEdit: boolean;
  busyId: string | null;
  onOpen: (a: Appointment) => void;
  onMove: (a: Appointment, to: Spot) => void;
  announce: (text: string) => void;
}) {
  const { frame, doors, blocks } = props;
  const [moving, setMoving] = useState<Moving | null>(null);
  const drag = useRef<Drag | null>(null);
  const doorsRef = useRef<HTMLDivElement>(null);
  const justDragged = useRef(false);
  // The block last moved: a move to another door draws it in that door's column (a new element),
  // so the focus is put back on it, and the keyboard goes on from there. Never taken from elsewhere.
  const refocus = useRef<string | null>(null);
  useEffect(() => {
    const id = refocus.current;
    if (!id || (document.activeElement && document.activeElement !== document.body)) return;
    document.querySelector<HTMLElement>(`.dock-block[data-appointment="${CSS.escape(id)}"]`)?.focus();
  });
  const height = frame.rows.length * ROW_PX;
  const tz = frame.timeZone;

  const spotOf = (b: Block<Appointment>): Spot => ({ startAt: Date.parse(b.item.startAt), door: b.door });
  const duration = (a: Appointment) => Date.parse(a.endAt) - Date.parse(a.startAt);
  const where = (a: Appointment, s: Spot) =>
    `${doors[s.door]?.name ?? ''}, ${clock(s.startAt, tz)} to ${clock(s.startAt + duration(a), tz)}`;
  const same = (a: Spot, b: Spot) => a.startAt === b.startAt && a.door === b.door;

  const confirm = (b: Block<Appointment>, to: Spot) => {
    setMoving(null);
    refocus.current = b.item.id;
    if (same(to, spotOf(b))) {
      props.announce(`${b.item.code} stays at ${where(b.item, to)}.`);
      return;
    }
    props.onMove(b.item, to);
  };

  const onKey = (e: KeyboardEvent, b: Block<Appointment>) => {
    const mine = moving?.id === b.item.id ? moving : null;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (mine) confirm(b, mine.spot);
      else props.onOpen(b.item);
      return;
    }
    if (e.key === 'Escape' && mine) {
      e.preventDefault();
      e.stopPropagation();
      setMoving(null);
      props.announce(`Move cancelled: ${b.item.code} stays at ${where(b.item, spotOf(b))}.`);
      return;
    }
    if (!props.mayEdit || !isMovable(b.item) || props.busyId) return;
    const to = keyMove(e.key, mine?.spot ?? spotOf(b), duration(b.item), frame, doors.length);
    if (!to) return;
    e.preventDefault();
    setMoving({ id: b.item.id, spot: to });
    // Keep the block in view while it travels (the grid scrolls; the keys do not scroll it).
    const el = e.currentTarget as HTMLElement;
    requestAnimationFrame(() => el.scrollIntoView({ block: 'nearest', inline: 'nearest' }));
    props.announce(`Move ${b.item.code} to ${where(b.item, to)}: Enter to confirm, Escape to leave it.`);
  };

  const onPointerDown = (e: PointerEvent, b: Block<Appointment>) => {
    if (e.button !== 0 || !props.mayEdit || !isMovable(b.item) || props.busyId) return;
    const el = e.currentTarget as HTMLElement;
    const columns = doorsRef.current?.getBoundingClientRect();
    const column = columns ? columns.width / doors.length : 1;
    drag.current = {
      id: b.item.id,
      pointerId: e.pointerId,
      startX: e.clientX,
      startY: e.clientY,
      top: b.top,
      left: b.door * column + column / 2,
      dragging: false,
    };
    el.setPointerCapture(e.pointerId);
  };

  const onPointerMove = (e: PointerEvent, b: Block<Appointment>) => {
    const d = drag.current;
    if (!d || d.pointerId !== e.pointerId || d.id !== b.item.id) return;
    const dx = e.clientX - d.startX;
    const dy = e.clientY - d.startY;
    if (!d.dragging && Math.hypot(dx, dy) < DRAG_THRESHOLD_PX) return;
    d.dragging = true;
    const columns = doorsRef.current?.getBoundingClientRect();
    const column = columns ? columns.width / doors.length : 1;
    const to = pointerSpot(d.top + dy, d.left + dx, column, duration(b.item), frame, doors.length);
    if (!moving || moving.id !== b.item.id || !same(moving.spot, to)) {
      setMoving({ id: b.item.id, spot: to });
      props.announce(`Drop to move ${b.item.code} to ${where(b.item, to)}.`);
    }
  };

  const onPointerUp = (e: PointerEvent, b: Block<Appointment>) => {
    const d = drag.current;
    if (!d || d.pointerId !== e.pointerId) return;
    drag.current = null;
    if (!d.dragging) return;
    justDragged.current = true;
    if (moving?.id === b.item.id) confirm(b, moving.spot);
  };

  return (
    <div class="dock-grid" style={{ '--doors': String(doors.length) }}>
      <div class="dock-corner" aria-hidden="true" />
      <div class="dock-heads" aria-hidden="true">
        {doors.map((d) => (
          <div key={d.id} class="dock-head">
            {d.name}
            {d.capacity > 1 && <small> ({d.capacity} at once)</small>}
          </div>
        ))}
      </div>
      <div class="dock-times" aria-hidden="true" style={{ height: `${height}px` }}>
        {frame.rows.map((r) =>
          r.hour ? (
            <div key={r.at} class="dock-time" style={{ top: `${verticalPlace(frame, r.at, r.at).top}px` }}>
              {r.label}
            </div>
          ) : null,
        )}
      </div>
      <div class="dock-doors" ref={doorsRef} style={{ height: `${height}px` }}>
        {doors.map((d, i) => (
          <ul
            key={d.id}
            class="dock-door"
            aria-label={`${d.name}: appointments`}
            style={{ left: `${(i * 100) / doors.length}%` }}
          >
            {blocks
              .filter((b) => b.door === i)
              .map((b) => {
                const a = b.item;
                const m = moving?.id === a.id ? moving : null;
                const at = m ? m.spot : spotOf(b);
                const place = m ? verticalPlace(frame, at.startAt, at.startAt + duration(a)) : b;
                const shift = m ? (m.spot.door - b.door) * 100 : 0;
                const width = 100 / b.lanes;
                const status = statusText(a);
                return (
                  <li key={a.id}>
                    <button
                      type="button"
                      data-appointment={a.id}
                      class={`dock-block status-${a.status}${a.overdue ? ' overdue' : ''}${m ? ' moving' : ''}`}
                      style={{
                        top: `${place.top}px`,
                        height: `${place.height}px`,
                        left: `calc(${b.lane * width}% + ${shift}%)`,
                        width: `calc(${width}% - 4px)`,
                      }}
                      aria-label={`${clock(a.startAt, tz)} to ${clock(a.endAt, tz)}, ${a.carrierName}, ${a.loadTypeName}, ${status}, code ${a.code}`}
                      aria-describedby={props.mayEdit && isMovable(a) ? 'dock-move-help' : undefined}
                      aria-busy={props.busyId === a.id ? 'true' : undefined}
                      onKeyDown={(e) => onKey(e, b)}
                      onBlur={() => {
                        if (moving?.id === a.id && !drag.current) setMoving(null);
                      }}
                      onPointerDown={(e) => onPointerDown(e, b)}
                      onPointerMove={(e) => onPointerMove(e, b)}
                      onPointerUp={(e) => onPointerUp(e, b)}
                      onPointerCancel={() => {
                        drag.current = null;
                        setMoving(null);
                      }}
                      onClick={(e) => {
                        e.preventDefault();
                        if (justDragged.current) {
                          justDragged.current = false;
                          return;
                        }
                        // A click (not Enter: onKey handles that) opens the details.
                        if (e.detail > 0) props.onOpen(a);
                      }}
                    >
                      <span class="dock-block-time">
                        {clock(at.startAt, tz)}–{clock(at.startAt + duration(a), tz)}
                      </span>{' '}
                      <span class="dock-block-carrier">{a.carrierName}</span>{' '}
                      <span class="dock-block-status">{status}</span>{' '}
                      <span class="dock-block-code">{a.code}</span>
                    </button>
                  </li>
                );
              })}
          </ul>
        ))}
      </div>
      <p id="dock-move-help" class="visually-hidden">
        Arrow keys move it by a slot or to the next door, Page Up and Page Down by an hour; Enter moves it
        there, Escape leaves it.
      </p>
    </div>
  );
}
