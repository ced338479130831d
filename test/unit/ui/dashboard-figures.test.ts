import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../../shared/ui/common/api/client';
import {
  gateCounts,
  lastSeenWords,
  linkWords,
  replaceSite,
  type SiteStatus,
  skewWords,
  sortSites,
  summarise,
  usualVersion,
} from '../../../shared/ui/dashboard/sites/site-words';
import { touchesYard } from '../../../shared/ui/dashboard/yard/live-refresh';
import { movementSummary } from '../../../shared/ui/dashboard/yard/movement-chart';
import { longestDwell } from '../../../shared/ui/dashboard/yard/occupancy';

const NOW = Date.parse('2026-11-25T20:14:00Z');
const TZ = 'UTC';

function site(siteId: string, over: Partial<SiteStatus> = {}): SiteStatus {
  return {
    siteId,
    name: siteId.toUpperCase(),
    link: 'online',
    lastSeenAt: null,
    lagMs: 0,
    queued: 0,
    reportedQueued: 0,
    deadLetters: 0,
    clockSkewMs: 0,
    schemaV: 8,
    version: '1.0.0',
    linkSince: null,
    gates: null,
    ...over,
  };
}

function location(id: string, over: Partial<Schemas['Location']> = {}): Schemas['Location'] {
  return {
    id,
    yardId: 'y1',
    kind: 'spot',
    name: id.toUpperCase(),
    capacity: 1,
    status: 'active',
    plan: null,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    version: 1,
    ...over,
  };
}

/** A clock time in the test machine's locale: "20:02" or "08:02 PM". */
const clock = (h: number, m: string) => `(${h}:${m}|0?${h - 12}:${m}\\sPM)`;

describe('site words', () => {
  it('says how long a link has been in its state, in the zone given', () => {
    expect(linkWords('offline', '2026-11-25T20:02:00Z', TZ, NOW)).toMatch(
      new RegExp(`^offline since ${clock(20, '02')}, 12 min$`),
    );
    expect(linkWords('online', '2026-11-25T17:00:00Z', TZ, NOW)).toMatch(
      new RegExp(`^online since ${clock(17, '00')}, 3 h 14 min$`),
    );
    expect(linkWords('never', null, TZ, NOW)).toBe('never connected');
    expect(linkWords('offline', null, TZ, NOW)).toBe('offline');
    expect(lastSeenWords('2026-11-25T20:13:30Z', TZ, NOW)).toMatch(/\(just now\)$/);
    expect(lastSeenWords('2026-11-25T20:04:00Z', TZ, NOW)).toMatch(/\(10 min ago\)$/);
    expect(lastSeenWords(null, TZ, NOW)).toBe('never');
  });

  it('mentions a clock only when it is off by 30 s or more, with the direction', () => {
    expect(skewWords(29_999)).toBeNull();
    expect(skewWords(-45_000)).toBe('clock 45 s behind');
    expect(skewWords(2 * 60_000)).toBe('clock 2 min ahead');
  });

  it('puts offline and never-connected sites first, then by name; sums the top line', () => {
    const sites = [
      site('b'),
      site('a', { link: 'offline', queued: 5, deadLetters: 2 }),
      site('c', { link: 'never', queued: 1 }),
      site('a2'),
    ];
    expect(sortSites(sites).map((s) => s.siteId)).toEqual(['a', 'c', 'a2', 'b']);
    expect(summarise(sites)).toEqual({ online: 2, offline: 2, queued: 6, deadLetters: 2 });
  });

  it("replaces one site's row from a live event, and adds a new site", () => {
    const sites = [site('a'), site('b')];
    const next = replaceSite(sites, site('b', { link: 'offline' }));
    expect(next.map((s) => s.link)).toEqual(['online', 'offline']);
    expect(sites[1]!.link).toBe('online');
    expect(replaceSite(sites, site('c')).map((s) => s.siteId)).toEqual(['a', 'b', 'c']);
  });

  it('flags a version only against a clear majority', () => {
    expect(usualVersion([site('a'), site('b'), site('c', { version: '0.9.0' })])).toBe('1.0.0');
    expect(usualVersion([site('a'), site('b', { version: '0.9.0' })])).toBeNull();
    expect(usualVersion([site('a'), site('b')])).toBeNull();
  });

  it('counts gates by state, worst first', () => {
    expect(gateCounts([{ state: 'ok' }, { state: 'fault' }, { state: 'ok' }, { state: 'idle' }])).toEqual([
      ['fault', 1],
      ['idle', 1],
      ['ok', 2],
    ]);
  });
});

describe('yard figures', () => {
  const locations = [
    location('s1'),
    location('s2'),
    location('d1', { kind: 'door' }),
    location('st', { kind: 'staging', capacity: 4 }),
    location('z', { kind: 'zone', capacity: 50 }),
    location('off', { status: 'inactive' }),
  ];

  // Occupancy (capacity, places in use) is counted by the API: test/integration/yards/occupancy.test.ts.
  it('lists the longest dwell first, at most 20', () => {
    const trailers = Array.from({ length: 25 }, (_, i) => ({
      id: `t${i}`,
      carrierId: null,
      number: `T${i}`,
      plate: null,
      plateRegion: null,
      type: 'dry_van' as const,
      lengthFt: null,
      loadStatus: 'empty' as const,
      sealNumber: null,
      yardId: 'y1',
      locationId: null,
      inYard: true,
      arrivedAt: new Date(NOW - (i + 1) * 60_000).toISOString(),
      notes: null,
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
      version: 1,
    }));
    const rows = longestDwell(trailers, [], locations, NOW);
    expect(rows).toHaveLength(20);
    expect(rows[0]!.number).toBe('T24');
    expect(rows[19]!.number).toBe('T5');
  });

  it('refreshes on events of this yard only (and on org-wide synced rows)', () => {
    expect(touchesYard('movement.created', { yardId: 'y1', data: {} }, 'y1')).toBe(true);
    expect(touchesYard('movement.created', { yardId: 'y2', data: {} }, 'y1')).toBe(false);
    expect(touchesYard('task.assigned', { data: { yardId: 'y1' } }, 'y1')).toBe(true);
    expect(touchesYard('sync.applied', { data: { yardIds: ['y2'] } }, 'y1')).toBe(false);
    expect(touchesYard('sync.applied', { data: { yardIds: ['y1'] } }, 'y1')).toBe(true);
    expect(touchesYard('sync.applied', { data: { peer: 'cloud' } }, 'y1')).toBe(true);
  });

  it('says the movements in words: totals and the busiest bucket', () => {
    const m: Schemas['DashboardMovementFigures'] = {
      yardId: 'y1',
      timeZone: TZ,
      bucket: 'hour',
      from: '2026-11-25T18:00:00Z',
      to: '2026-11-25T21:00:00Z',
      totals: { in: 5, out: 3 },
      buckets: [
        { start: '2026-11-25T18:00:00Z', label: '2026-11-25T18:00', in: 1, out: 0 },
        { start: '2026-11-25T19:00:00Z', label: '2026-11-25T19:00', in: 4, out: 2 },
        { start: '2026-11-25T20:00:00Z', label: '2026-11-25T20:00', in: 0, out: 1 },
      ],
    };
    const text = movementSummary(m, TZ);
    expect(text).toMatch(
      /^In the last 24 hours: 5 check-ins and 3 check-outs\. Busiest hour: Wed (19:00|07:00\sPM), 4 in and 2 out\.$/,
    );
    expect(movementSummary({ ...m, totals: { in: 0, out: 0 }, buckets: [] }, TZ)).toBe(
      'In the last 24 hours: 0 check-ins and 0 check-outs.',
    );
  });
});
