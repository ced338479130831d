import type { Plan } from './plan';

/** Roughly how wide a character of the map's font is, per unit of font size. */
const CHAR = 0.62;

export interface TextSpot {
  x: number;
  y: number;
  size: number;
  /** -90: read along the location's long side, bottom to top. */
  rotate: number;
  anchor: 'start' | 'middle' | 'end';
}

/**
 * Where a location's name and its trailer number go, in plan metres (before the location's own
 * rotation). The name sits across the top when it fits there at a readable size, otherwise along
 * the long side from the top; the trailer number runs along the long side in the room that is left.
 */
export function layoutLabels(
  p: Plan,
  name: string,
  trailer: string | null,
  zone: boolean,
): { name: TextSpot; trailer: TextSpot | null } {
  const cx = p.x + p.width / 2;
  if (zone) {
    const size = Math.min(2.4, (p.width * 0.9) / (name.length * CHAR), p.height * 0.3);
    return { name: { x: p.x + 1, y: p.y + size + 0.6, size, rotate: 0, anchor: 'start' }, trailer: null };
  }
  const tall = p.height > p.width * 1.2;
  const across = Math.min(1.6, (p.width * 0.9) / (name.length * CHAR), p.height * 0.5);
  let nameSpot: TextSpot;
  let used: number;
  if (!tall || across >= 1.2) {
    nameSpot = { x: cx, y: p.y + across + 0.3, size: across, rotate: 0, anchor: 'middle' };
    used = across + 0.8;
  } else {
    const size = Math.min(1.6, p.width * 0.45, (p.height * 0.4) / (name.length * CHAR));
    nameSpot = { x: cx + size * 0.35, y: p.y + 0.5, size, rotate: -90, anchor: 'end' };
    used = name.length * CHAR * size + 1;
  }
  if (!trailer) return { name: nameSpot, trailer: null };
  if (tall) {
    const room = p.height - used;
    const size = Math.min(1.9, p.width * 0.5, (room * 0.9) / (trailer.length * CHAR));
    return {
      name: nameSpot,
      trailer: { x: cx + size * 0.35, y: p.y + used + room / 2, size, rotate: -90, anchor: 'middle' },
    };
  }
  const room = p.height - used;
  const size = Math.min(1.9, room * 0.7, (p.width * 0.9) / (trailer.length * CHAR));
  return {
    name: nameSpot,
    trailer: { x: cx, y: p.y + used + room / 2 + size * 0.35, size, rotate: 0, anchor: 'middle' },
  };
}
