import { describe, expect, it } from 'vitest';
import { type RowLookups, routeAtCloud } from '../../../shared/sync/cloud-routing-rule.js';
import { SYNCED_ENTITIES, type SyncedEntity } from '../../../shared/sync/entities.js';
import { mergeShared } from '../../../shared/sync/merge.js';
import {
  identityChanged,
  NEVER_WRITTEN,
  sharedData,
  type WriteContext,
} from '../../../shared/sync/unit-shares.js';

const entity = (name: string) => SYNCED_ENTITIES.find((e) => e.entity === name) as SyncedEntity;
const trailer = entity('trailer');
const truck = entity('truck');

const SITES = ['site-a', 'site-b', 'site-c'];
const YARDS: Record<string, string> = { 'yard-a': 'site-a', 'yard-b': 'site-b', 'yard-x': 'unregistered' };
const noLookups: RowLookups = {
  yardOfSession: () => undefined,
  yardsUsingIntegration: () => [],
  yardOfRef: () => undefined,
};
const route = (e: SyncedEntity, row: Record<string, unknown>, write?: WriteContext) =>
  routeAtCloud(e, row, SITES, (y) => YARDS[y], noLookups, write).map((r) => `${r.peer}:${r.share}`);

const h = (ms: number, origin = 'cloud') => `${String(ms).padStart(13, '0')}-0000-${origin}`;

/** A trailer as stored: in `yardId` (or none), every field written at `at`. */
function storedTrailer(yardId: string | null, at = 1_000, extra: Record<string, unknown> = {}) {
  const fields = {
    id: 't1',
    carrierId: 'c1',
    number: 'TR-1',
    plate: 'P-1',
    plateRegion: null,
    type: 'dry_van',
    lengthFt: 53,
    loadStatus: 'loaded',
    sealNumber: 'S-1',
    yardId,
    locationId: yardId ? `spot-${yardId}` : null,
    arrivedAt: yardId ? at : null,
    notes: null,
    createdAt: at,
    updatedAt: at,
    ...extra,
  };
  const clocks = Object.fromEntries(Object.keys(fields).map((k) => [k, h(at)]));
  return { ...fields, hlc: h(at), fieldHlc: JSON.stringify(clocks), version: 1, apiJson: '{}' };
}

describe('routing units by relevance (routeAtCloud)', () => {
  it('a new trailer in a yard: the yard’s site gets the row, every other site its identity', () => {
    expect(route(trailer, storedTrailer('yard-a'))).toEqual([
      'site-a:row',
      'site-b:identity',
      'site-c:identity',
    ]);
  });

  it('a load or spot change goes to the yard’s site only; a number change to every site', () => {
    const before = storedTrailer('yard-a');
    const loaded = { ...before, loadStatus: 'empty', locationId: 'spot-2', updatedAt: 2_000 };
    expect(route(trailer, loaded, { op: 'upsert', before })).toEqual(['site-a:row']);
    const renumbered = { ...before, number: 'TR-2', updatedAt: 2_000 };
    expect(route(trailer, renumbered, { op: 'upsert', before })).toEqual([
      'site-a:row',
      'site-b:identity',
      'site-c:identity',
    ]);
  });

  it('a move from A’s yard to B’s: B gets the row, A its departure, C nothing', () => {
    const before = storedTrailer('yard-a');
    const atB = { ...storedTrailer('yard-b', 2_000), createdAt: 1_000 };
    expect(route(trailer, atB, { op: 'upsert', before })).toEqual(['site-a:departure', 'site-b:row']);
  });

  it('a check-out: the site it left gets the row (no yard in it); the others nothing', () => {
    const before = storedTrailer('yard-a');
    const out = { ...before, yardId: null, locationId: null, arrivedAt: null, updatedAt: 2_000 };
    expect(route(trailer, out, { op: 'upsert', before })).toEqual(['site-a:row']);
  });

  it('a unit in no yard that stays out is every site’s whole; a delete goes everywhere', () => {
    const before = storedTrailer(null);
    const noted = { ...before, loadStatus: 'empty', updatedAt: 2_000 };
    expect(route(trailer, noted, { op: 'upsert', before })).toEqual([
      'site-a:row',
      'site-b:row',
      'site-c:row',
    ]);
    expect(route(trailer, storedTrailer(null))).toEqual(['site-a:row', 'site-b:row', 'site-c:row']);
    expect(
      route(trailer, storedTrailer('yard-a'), { op: 'delete', before: storedTrailer('yard-a') }),
    ).toEqual(['site-a:row', 'site-b:row', 'site-c:row']);
  });

  it('a unit in the yard of an unregistered site: identities only', () => {
    expect(route(trailer, storedTrailer('yard-x'))).toEqual([
      'site-a:identity',
      'site-b:identity',
      'site-c:identity',
    ]);
  });

  it('a site’s own change does not go back to it, unless the merge gave it what it lacked and the unit is its own', () => {
    const before = storedTrailer('yard-a');
    const atB = { ...storedTrailer('yard-b', 2_000), createdAt: 1_000 };
    const from = (combined: boolean): WriteContext => ({
      op: 'upsert',
      before,
      from: { site: 'site-b', combined },
    });
    expect(route(trailer, atB, from(false))).toEqual(['site-a:departure']);
    expect(route(trailer, atB, from(true))).toEqual(['site-a:departure', 'site-b:row']);
    // Not its own unit (a stale copy of the site's was merged): no row of another site's yard back.
    const stillAtA = { ...before, number: 'TR-9' };
    expect(
      route(trailer, stillAtA, { op: 'upsert', before, from: { site: 'site-b', combined: true } }),
    ).toEqual(['site-a:row', 'site-c:identity']);
    // Other records are never sent back.
    expect(
      route(
        entity('driver'),
        { id: 'd1' },
        { op: 'upsert', before: { id: 'd1' }, from: { site: 'site-b', combined: true } },
      ),
    ).toEqual(['site-a:row', 'site-c:row']);
  });

  it('trucks: the yard is their only whereabouts', () => {
    const before = {
      id: 'k1',
      plate: 'X1',
      unitNumber: '7',
      status: 'active',
      yardId: 'yard-a',
      updatedAt: 1,
    };
    expect(route(truck, { ...before, yardId: 'yard-b', updatedAt: 2 }, { op: 'upsert', before })).toEqual([
      'site-a:departure',
      'site-b:row',
    ]);
    expect(route(truck, { ...before, status: 'retired', updatedAt: 2 }, { op: 'upsert', before })).toEqual([
      'site-a:row',
      'site-b:identity',
      'site-c:identity',
    ]);
  });
});

describe('a unit’s shares (sharedData)', () => {
  it('identity: whereabouts and load left out, their field clocks older than any write', () => {
    const row = storedTrailer('yard-a', 5_000);
    const identity = sharedData(trailer, row, 'identity');
    for (const f of ['yardId', 'locationId', 'arrivedAt', 'loadStatus', 'sealNumber', 'apiJson'])
      expect(identity).not.toHaveProperty(f);
    expect(identity).toMatchObject({
      id: 't1',
      number: 'TR-1',
      plate: 'P-1',
      carrierId: 'c1',
      hlc: h(5_000),
    });
    const clocks = JSON.parse(String(identity.fieldHlc));
    expect(clocks).toMatchObject({ number: h(5_000), yardId: NEVER_WRITTEN, loadStatus: NEVER_WRITTEN });
  });

  it('departure: whereabouts null at the move’s clocks, load left out', () => {
    const departure = sharedData(trailer, storedTrailer('yard-b', 6_000), 'departure');
    expect(departure).toMatchObject({ yardId: null, locationId: null, arrivedAt: null, number: 'TR-1' });
    expect(departure).not.toHaveProperty('loadStatus');
    expect(JSON.parse(String(departure.fieldHlc))).toMatchObject({
      yardId: h(6_000),
      loadStatus: NEVER_WRITTEN,
    });
  });

  it('a copy made from an identity never overrides the cloud’s whereabouts and load when sent back up', () => {
    const atCloud = storedTrailer('yard-a', 1_000);
    const identity = sharedData(trailer, atCloud, 'identity');
    // The site stores the identity with its column defaults, then changes the plate at 9_000.
    const clocks = { ...JSON.parse(String(identity.fieldHlc)), plate: h(9_000, 'site-b') };
    const atSite = {
      ...identity,
      yardId: null,
      locationId: null,
      arrivedAt: null,
      loadStatus: 'unknown',
      sealNumber: null,
      plate: 'P-NEW',
      hlc: h(9_000, 'site-b'),
      fieldHlc: JSON.stringify(clocks),
    };
    const fields = Object.keys(atCloud).filter((f) => f !== 'apiJson');
    const merged = mergeShared(atCloud, atSite, fields, 'id', false);
    expect(merged.kind).toBe('merged');
    const row = (merged as { row: Record<string, unknown> }).row;
    expect(row).toMatchObject({ plate: 'P-NEW', yardId: 'yard-a', loadStatus: 'loaded', sealNumber: 'S-1' });
  });

  it('an identity merged into a copy keeps the copy’s own whereabouts and load', () => {
    const atSite = storedTrailer(null, 1_000, { loadStatus: 'empty' });
    const atCloud = { ...storedTrailer('yard-a', 2_000, { number: 'TR-2' }), createdAt: 1_000 };
    const identity = sharedData(trailer, atCloud, 'identity');
    const fields = Object.keys(atSite).filter((f) => f !== 'apiJson');
    const merged = mergeShared(atSite, identity, fields, 'id', false);
    expect((merged as { row: Record<string, unknown> }).row).toMatchObject({
      number: 'TR-2',
      yardId: null,
      loadStatus: 'empty',
    });
  });

  it('identityChanged ignores bookkeeping, whereabouts and load', () => {
    const before = storedTrailer('yard-a');
    expect(
      identityChanged(trailer, before, {
        ...before,
        yardId: null,
        loadStatus: 'empty',
        updatedAt: 9,
        hlc: h(9),
        version: 2,
      }),
    ).toBe(false);
    expect(identityChanged(trailer, before, { ...before, notes: 'dented' })).toBe(true);
    // PostgreSQL and SQLite spellings of the same value are the same value.
    expect(identityChanged(trailer, before, { ...before, lengthFt: '53' })).toBe(false);
    // A field the write does not carry is not written by it.
    expect(identityChanged(trailer, before, { ...before, plate: undefined })).toBe(false);
    expect(identityChanged(trailer, before, { ...before, plate: null })).toBe(true);
  });
});
