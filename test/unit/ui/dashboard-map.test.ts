import { describe, expect, it } from 'vitest';
import type { InventoryRow } from '../../../shared/ui/common/inventory/rows';
import { changedDrafts } from '../../../shared/ui/dashboard/map/drafts';
import { layoutLabels } from '../../../shared/ui/dashboard/map/labels';
import { bandOf, locationSummary, occupancyByLocation } from '../../../shared/ui/dashboard/map/occupancy';
import {
  corners,
  type Location,
  normalise,
  placedAt,
  planBounds,
  rotateAbout,
} from '../../../shared/ui/dashboard/map/plan';

const HOUR = 3_600_000;
const spot = { x: 10, y: 20, width: 4, height: 17, rotation: 0 };

function row(id: string, locationId: string | null, dwellMs: number): InventoryRow {
  return {
    id,
    number: `T-${id}`,
    carrierId: null,
    carrier: 'Acme (ACME)',
    locationId,
    spot: '',
    loadStatus: 'loaded',
    sealNumber: null,
    arrivedAt: null,
    dwellMs,
    tasks: [],
  };
}

function location(id: string, plan: Location['plan'], version = 3): Location {
  return {
    id,
    yardId: 'y',
    kind: 'spot',
    name: id,
    capacity: 1,
    status: 'active',
    plan,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    version,
  };
}

describe('yard map: dwell bands', () => {
  it('empty, under 24 h, 1 to 3 days, over 3 days', () => {
    expect(bandOf(null)).toBe('empty');
    expect(bandOf(0)).toBe('day');
    expect(bandOf(24 * HOUR - 1)).toBe('day');
    expect(bandOf(24 * HOUR)).toBe('days');
    expect(bandOf(72 * HOUR)).toBe('days');
    expect(bandOf(72 * HOUR + 1)).toBe('long');
  });

  it('a location is banded by its longest-standing trailer; trailers on no location are left out', () => {
    const occ = occupancyByLocation([row('a', 'L1', HOUR), row('b', 'L1', 80 * HOUR), row('c', null, HOUR)]);
    expect([...occ.keys()]).toEqual(['L1']);
    expect(occ.get('L1')!.band).toBe('long');
    expect(occ.get('L1')!.trailers.map((t) => t.id)).toEqual(['b', 'a']);
    expect(locationSummary('S1', 'spot', undefined)).toBe('S1 (spot): empty');
    expect(locationSummary('S1', 'spot', occ.get('L1'))).toBe(
      'S1 (spot): T-b, Acme (ACME), loaded, 3 d 8 h in the yard; T-a, Acme (ACME), loaded, 1 h 0 min in the yard',
    );
  });
});

describe('yard map: plan geometry', () => {
  it('corners turn about the centre; the bounds hold every corner plus a margin', () => {
    const turned = corners({ ...spot, rotation: 90 }).map(([x, y]) => [
      Math.round(x * 10) / 10,
      Math.round(y * 10) / 10,
    ]);
    // A 4 x 17 spot turned a quarter is 17 x 4 about the same centre (12, 28.5).
    expect(turned).toEqual([
      [20.5, 26.5],
      [20.5, 30.5],
      [3.5, 30.5],
      [3.5, 26.5],
    ]);
    const b = planBounds([
      { ...spot, rotation: 90 },
      { x: 40, y: 0, width: 10, height: 10, rotation: 0 },
    ]);
    expect(b.x).toBeCloseTo(3.5 - 8);
    expect(b.y).toBeCloseTo(0 - 8);
    expect(b.width).toBeCloseTo(50 - 3.5 + 16);
    expect(b.height).toBeCloseTo(30.5 + 16);
    expect(planBounds([])).toEqual({ x: 0, y: 0, width: 120, height: 80 });
    expect(rotateAbout(spot)).toBeUndefined();
    expect(rotateAbout({ ...spot, rotation: 30 })).toBe('rotate(30 12 28.5)');
  });

  it('normalise keeps what the API accepts: tenths, bounds, positive size, rotation in [0, 360)', () => {
    expect(normalise({ x: 1.234, y: -20_000, width: 0, height: 5000, rotation: -90 })).toEqual({
      x: 1.2,
      y: -10_000,
      width: 0.5,
      height: 2000,
      rotation: 270,
    });
    expect(normalise({ ...spot, rotation: 359.99 }).rotation).toBe(0);
    expect(normalise({ ...spot, rotation: 720 }).rotation).toBe(0);
  });

  it("a click places a location centred on the point with its kind's size", () => {
    expect(placedAt('spot', 70, 75)).toEqual({ x: 68, y: 66.5, width: 4, height: 17, rotation: 0 });
    expect(placedAt('zone', 0, 0)).toEqual({ x: -10, y: -10, width: 20, height: 20, rotation: 0 });
  });

  it('labels stay inside their location', () => {
    const { name, trailer } = layoutLabels(spot, 'Door 1', 'LSLG5300', false);
    // Too long to fit across a 4 m door: along its side, from the top.
    expect(name.rotate).toBe(-90);
    expect(trailer!.rotate).toBe(-90);
    const along = (text: string, size: number) => text.length * 0.62 * size;
    expect(name.y - spot.y + along('Door 1', name.size)).toBeLessThan(
      trailer!.y - spot.y - along('LSLG5300', trailer!.size) / 2,
    );
    expect(trailer!.y + along('LSLG5300', trailer!.size) / 2).toBeLessThanOrEqual(spot.y + spot.height);
    const short = layoutLabels(spot, 'S01', null, false);
    expect(short.name.rotate).toBe(0);
    expect(short.trailer).toBeNull();
  });
});

describe('yard map: drafts', () => {
  it('only positions that differ from the stored one are saved, with the version editing began at', () => {
    const a = location('a', spot);
    const b = location('b', null);
    const c = location('c', spot);
    const drafts = new Map([
      ['a', { plan: { ...spot }, version: 3 }],
      ['b', { plan: spot, version: 1 }],
      ['c', { plan: null, version: 2 }],
      ['gone', { plan: spot, version: 1 }],
    ]);
    expect(changedDrafts(drafts, [a, b, c]).map(([l, d]) => [l.id, d.version])).toEqual([
      ['b', 1],
      ['c', 2],
    ]);
  });
});
