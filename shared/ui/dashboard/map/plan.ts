import type { Schemas } from '../../common/api/client';

export type Location = Schemas['Location'];
/** A position (the generated component is nullable, as every named schema used with .nullable() is). */
export type Plan = NonNullable<Schemas['LocationPlan']>;
export type Kind = Location['kind'];

/** The API's bounds of a position (location-schema.ts PLAN_BOUNDS): the editor keeps inside them. */
export const BOUNDS = { coordinate: 10_000, size: 2_000 } as const;

/** What a location placed by a click starts as, by kind: a trailer's footprint for spots and doors. */
export const DEFAULT_SIZE: Record<Kind, { width: number; height: number }> = {
  spot: { width: 4, height: 17 },
  door: { width: 4, height: 17 },
  staging: { width: 30, height: 5 },
  zone: { width: 20, height: 20 },
};

/** Drawn back to front: zones behind, then staging areas, doors and spots on top. */
export const DRAW_ORDER: Record<Kind, number> = { zone: 0, staging: 1, door: 2, spot: 3 };

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A plan with nothing placed yet: a yard-sized field to place the first locations on. */
const EMPTY_PLAN: Box = { x: 0, y: 0, width: 120, height: 80 };
/** Room around the placed locations, in metres, so there is space to place more. */
const MARGIN = 8;

/** The four corners of a position after its rotation about its centre. */
export function corners(p: Plan): Array<[number, number]> {
  const cx = p.x + p.width / 2;
  const cy = p.y + p.height / 2;
  const a = (p.rotation * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  return [
    [-p.width / 2, -p.height / 2],
    [p.width / 2, -p.height / 2],
    [p.width / 2, p.height / 2],
    [-p.width / 2, p.height / 2],
  ].map(([dx, dy]) => [cx + dx! * cos - dy! * sin, cy + dx! * sin + dy! * cos]);
}

/**
 * The area the map shows: the placed locations' extent (rotation included) plus a margin. The yard
 * record has no plan size of its own: the plan is as large as what is drawn on it, so it never
 * disagrees with its locations, and a new location placed near an edge widens it.
 */
export function planBounds(plans: Plan[]): Box {
  if (plans.length === 0) return EMPTY_PLAN;
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (const p of plans)
    for (const [x, y] of corners(p)) {
      minX = Math.min(minX, x);
      minY = Math.min(minY, y);
      maxX = Math.max(maxX, x);
      maxY = Math.max(maxY, y);
    }
  return {
    x: minX - MARGIN,
    y: minY - MARGIN,
    width: Math.max(maxX - minX, 20) + 2 * MARGIN,
    height: Math.max(maxY - minY, 20) + 2 * MARGIN,
  };
}

/** A tenth of a metre is as fine as a yard plan needs (and keeps the numbers readable). */
export function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** A position the API accepts: rounded, inside the bounds, size above 0, rotation in [0, 360). */
export function normalise(p: Plan): Plan {
  const rotation = round(((p.rotation % 360) + 360) % 360);
  return {
    x: clamp(round(p.x), -BOUNDS.coordinate, BOUNDS.coordinate),
    y: clamp(round(p.y), -BOUNDS.coordinate, BOUNDS.coordinate),
    width: clamp(round(p.width), 0.5, BOUNDS.size),
    height: clamp(round(p.height), 0.5, BOUNDS.size),
    rotation: rotation >= 360 ? 0 : rotation,
  };
}

/** A new position centred on a point of the plan, with the kind's usual size. */
export function placedAt(kind: Kind, x: number, y: number): Plan {
  const size = DEFAULT_SIZE[kind];
  return normalise({ x: x - size.width / 2, y: y - size.height / 2, ...size, rotation: 0 });
}

export function samePlan(a: Plan | null, b: Plan | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height && a.rotation === b.rotation
  );
}

/** SVG transform that turns a position's rectangle about its centre. */
export function rotateAbout(p: Plan): string | undefined {
  if (p.rotation === 0) return undefined;
  return `rotate(${p.rotation} ${p.x + p.width / 2} ${p.y + p.height / 2})`;
}
