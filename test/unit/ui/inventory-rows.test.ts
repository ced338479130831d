import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../../shared/ui/common/api/client';
import {
  buildRows,
  DEFAULT_SORT,
  filterRows,
  findRows,
  type InventoryRow,
  nextSort,
  sortRows,
  unitKey,
} from '../../../shared/ui/common/inventory/rows';
import { freeLocations } from '../../../shared/ui/gate/inventory/free-locations';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const hoursAgo = (h: number) => new Date(NOW - h * 3_600_000).toISOString();

function trailer(id: string, over: Partial<Schemas['Trailer']> = {}): Schemas['Trailer'] {
  return {
    id,
    carrierId: null,
    number: id.toUpperCase(),
    plate: null,
    plateRegion: null,
    type: 'dry_van',
    lengthFt: 53,
    loadStatus: 'unknown',
    sealNumber: null,
    yardId: 'y1',
    locationId: null,
    inYard: true,
    arrivedAt: hoursAgo(1),
    notes: null,
    createdAt: hoursAgo(100),
    updatedAt: hoursAgo(1),
    version: 1,
    ...over,
  };
}

function location(id: string, name: string, over: Partial<Schemas['Location']> = {}): Schemas['Location'] {
  return {
    id,
    yardId: 'y1',
    kind: 'spot',
    name,
    capacity: 1,
    status: 'active',
    createdAt: hoursAgo(100),
    updatedAt: hoursAgo(100),
    version: 1,
    ...over,
  } as Schemas['Location'];
}

const carriers = [
  { id: 'c1', name: 'Prairie Haulers', scac: 'PRHL' },
  { id: 'c2', name: 'Gulf Coast Carriers', scac: null },
] as Schemas['Carrier'][];
const locations = [location('l2', 'S2'), location('l10', 'S10'), location('l1', 'S1')];

function rows(): InventoryRow[] {
  return buildRows(
    [
      trailer('a 1', { carrierId: 'c1', locationId: 'l10', loadStatus: 'empty', arrivedAt: hoursAgo(2) }),
      trailer('b-2', { carrierId: 'c2', locationId: 'l2', loadStatus: 'loaded', arrivedAt: hoursAgo(30) }),
      trailer('c3', { locationId: null, arrivedAt: hoursAgo(5) }),
    ],
    carriers,
    locations,
    [
      { id: 't1', trailerId: 'c3', status: 'QUEUED' },
      { id: 't2', trailerId: 'c3', status: 'COMPLETED' },
    ] as Schemas['YardTask'][],
    NOW,
  );
}

describe('inventory rows', () => {
  it('joins carrier, spot, dwell and the open tasks of each trailer', () => {
    const [a, b, c] = rows();
    expect(a).toMatchObject({ carrier: 'Prairie Haulers (PRHL)', spot: 'S10', dwellMs: 2 * 3_600_000 });
    expect(b).toMatchObject({ carrier: 'Gulf Coast Carriers', spot: 'S2' });
    expect(c?.spot).toBe('');
    expect(c?.tasks.map((t) => t.id)).toEqual(['t1']);
  });

  it('sorts oldest first by default, spots in natural order with no spot last either way', () => {
    expect(sortRows(rows(), DEFAULT_SORT).map((r) => r.number)).toEqual(['B-2', 'C3', 'A 1']);
    expect(sortRows(rows(), { key: 'spot', dir: 'asc' }).map((r) => r.spot)).toEqual(['S2', 'S10', '']);
    expect(sortRows(rows(), { key: 'spot', dir: 'desc' }).map((r) => r.spot)).toEqual(['S10', 'S2', '']);
    expect(sortRows(rows(), { key: 'carrier', dir: 'asc' }).map((r) => r.number)).toEqual([
      'B-2',
      'A 1',
      'C3',
    ]);
    expect(sortRows(rows(), { key: 'load', dir: 'asc' }).map((r) => r.loadStatus)).toEqual([
      'loaded',
      'empty',
      'unknown',
    ]);
  });

  it('a new column starts in its natural direction, the same column flips', () => {
    expect(nextSort(DEFAULT_SORT, 'spot')).toEqual({ key: 'spot', dir: 'asc' });
    expect(nextSort({ key: 'spot', dir: 'asc' }, 'spot')).toEqual({ key: 'spot', dir: 'desc' });
    expect(nextSort({ key: 'spot', dir: 'asc' }, 'dwell')).toEqual({ key: 'dwell', dir: 'desc' });
  });

  it('filters by carrier and load status', () => {
    expect(filterRows(rows(), { carrierId: 'c1', loadStatus: '' }).map((r) => r.number)).toEqual(['A 1']);
    expect(filterRows(rows(), { carrierId: '', loadStatus: 'loaded' }).map((r) => r.number)).toEqual(['B-2']);
    expect(filterRows(rows(), { carrierId: '', loadStatus: '' })).toHaveLength(3);
  });

  it('"where is it?" ignores case, spaces and dashes; an exact number wins over partial ones', () => {
    expect(unitKey(' lslg 53-00 ')).toBe('LSLG5300');
    expect(findRows(rows(), 'a1').map((r) => r.number)).toEqual(['A 1']);
    expect(findRows(rows(), 'B 2').map((r) => r.number)).toEqual(['B-2']);
    const many = [...rows(), ...buildRows([trailer('c33')], [], [], [], NOW)];
    expect(findRows(many, 'c3').map((r) => r.number)).toEqual(['C3']);
    expect(findRows(many, '3').map((r) => r.number)).toEqual(['C3', 'C33']);
    expect(findRows(many, 'zz')).toEqual([]);
    expect(findRows(many, '  ')).toEqual([]);
  });
});

describe('free locations', () => {
  it('leaves out occupied places, places a move already heads to, inactive ones, zones and the own spot', () => {
    const all = [
      location('s1', 'S1'),
      location('s2', 'S2'),
      location('s3', 'S3'),
      location('s4', 'S4', { status: 'inactive' }),
      location('z', 'Zone', { kind: 'zone', capacity: 10 }),
      location('st', 'Staging', { kind: 'staging', capacity: 2 }),
      location('own', 'S0'),
    ];
    const free = freeLocations(
      all,
      [{ locationId: 's1' }, { locationId: 'st' }],
      [{ toLocationId: 's2' }],
      'own',
    );
    expect(free.map((l) => l.name)).toEqual(['S3', 'Staging']);
  });
});
