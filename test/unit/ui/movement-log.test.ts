import { describe, expect, it } from 'vitest';
import { dayStart, yardDateTime } from '../../../shared/ui/common/time';
import { rangeQuery } from '../../../shared/ui/gate/movements/date-range';
import { NameBook } from '../../../shared/ui/gate/movements/names';
import { matchesFilter, searchTarget, type Unit } from '../../../shared/ui/gate/movements/search';

describe('yard days to API instants', () => {
  it("a day starts at the yard's midnight, not the browser's", () => {
    expect(new Date(dayStart('2026-01-15', 'America/Chicago')).toISOString()).toBe(
      '2026-01-15T06:00:00.000Z',
    );
    expect(new Date(dayStart('2026-07-15', 'America/Chicago')).toISOString()).toBe(
      '2026-07-15T05:00:00.000Z',
    );
    expect(new Date(dayStart('2026-07-15', 'Europe/Berlin')).toISOString()).toBe('2026-07-14T22:00:00.000Z');
    expect(new Date(dayStart('2026-07-15', 'Asia/Kolkata')).toISOString()).toBe('2026-07-14T18:30:00.000Z');
  });

  it('the days of a DST change are 23 and 25 hours long', () => {
    const spring = rangeQuery('2026-03-08', '2026-03-08', 'America/Chicago');
    expect(spring).toEqual({ from: '2026-03-08T06:00:00.000Z', to: '2026-03-09T05:00:00.000Z' });
    const fall = rangeQuery('2026-11-01', '2026-11-01', 'America/Chicago');
    expect(fall).toEqual({ from: '2026-11-01T05:00:00.000Z', to: '2026-11-02T06:00:00.000Z' });
  });

  it('the to-day is included, an open end is left out, a backwards range is turned round', () => {
    expect(rangeQuery('2026-01-10', '', 'UTC')).toEqual({ from: '2026-01-10T00:00:00.000Z' });
    expect(rangeQuery('', '2026-01-10', 'UTC')).toEqual({ to: '2026-01-11T00:00:00.000Z' });
    expect(rangeQuery('2026-01-31', '2026-01-30', 'UTC')).toEqual({
      from: '2026-01-30T00:00:00.000Z',
      to: '2026-02-01T00:00:00.000Z',
    });
    expect(rangeQuery('', '', 'UTC')).toEqual({});
  });
});

describe('names for ids', () => {
  it('asks for each id once, all unknown ones of a page together, and keeps a short id on failure', async () => {
    const asked: string[] = [];
    const book = new NameBook(async (kind, id) => {
      asked.push(`${kind}:${id}`);
      if (id === 'gone-123456') throw new Error('404');
      return `${kind} name ${id}`;
    }, 2);
    await book.resolve([
      ['carrier', 'c1'],
      ['carrier', 'c1'],
      ['driver', 'd1'],
      ['trailer', null],
      ['truck', 'gone-123456'],
    ]);
    expect(asked.sort()).toEqual(['carrier:c1', 'driver:d1', 'truck:gone-123456']);
    expect(book.name('carrier', 'c1')).toBe('carrier name c1');
    expect(book.name('truck', 'gone-123456')).toBe('truck 123456');
    await book.resolve([
      ['carrier', 'c1'],
      ['driver', 'd2'],
    ]);
    expect(asked).toHaveLength(4);
  });

  it('a second page waiting for an id already in flight does not ask again', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const book = new NameBook(async () => {
      calls++;
      await gate;
      return 'Lone Star';
    });
    const first = book.resolve([['carrier', 'c1']]);
    const second = book.resolve([['carrier', 'c1']]);
    release();
    await Promise.all([first, second]);
    expect(calls).toBe(1);
    expect(book.name('carrier', 'c1')).toBe('Lone Star');
  });
});

describe('the trailer or plate search', () => {
  const units: Unit[] = [
    { id: 't1', kind: 'trailer', label: 'LSLG5300', key: 'LSLG5300' },
    { id: 't2', kind: 'trailer', label: 'LSLG53001', key: 'LSLG53001' },
    { id: 'k1', kind: 'truck', label: 'TX 8100', key: 'TX 8100' },
  ];
  it('an exact number or plate wins, ignoring case, spaces and dashes', () => {
    expect(searchTarget('lslg 5300', units)).toEqual({ kind: 'unit', unit: units[0] });
    expect(searchTarget('tx-8100', units)).toEqual({ kind: 'unit', unit: units[2] });
  });
  it('several partial matches are offered, none says so', () => {
    expect(searchTarget('LSLG53', units)).toEqual({ kind: 'choose', options: [units[0], units[1]] });
    expect(searchTarget('ZZ', units)).toEqual({ kind: 'none' });
    expect(searchTarget('  ', units)).toEqual({ kind: 'none' });
  });
});

describe('a live movement and the filters on screen', () => {
  const m = {
    yardId: 'y1',
    direction: 'in',
    at: '2026-03-01T12:00:00Z',
    trailerId: 't1',
    truckId: null,
  };
  it('shows when it matches the yard, direction, days and unit', () => {
    expect(matchesFilter(m, 'y1', {})).toBe(true);
    expect(matchesFilter(m, 'y2', {})).toBe(false);
    expect(matchesFilter(m, 'y1', { direction: 'out' })).toBe(false);
    expect(matchesFilter(m, 'y1', { to: '2026-03-01T12:00:00Z' })).toBe(false);
    expect(matchesFilter(m, 'y1', { from: '2026-03-01T12:00:00Z', trailerId: 't1' })).toBe(true);
    expect(matchesFilter(m, 'y1', { truckId: 'k1' })).toBe(false);
  });
});

describe('the full time of a record (tooltips)', () => {
  it("is the yard's date and clock with the zone's name, and does not throw", () => {
    const s = yardDateTime('2026-01-15T18:05:00Z', 'America/Chicago');
    expect(s).toMatch(/2026/);
    expect(s).toMatch(/12:05/);
    expect(s).toMatch(/CST/);
  });
});
