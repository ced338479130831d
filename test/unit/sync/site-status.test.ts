import { describe, expect, it } from 'vitest';
import { gatesToStore, storedGates } from '../../../cloud/sync/site-gates.js';
import { SiteStatusEvents } from '../../../cloud/sync/site-status-events.js';
import { EventBus, type PublishedEvent } from '../../../shared/bus.js';
import { silentLogger } from '../../../shared/log.js';
import type { SiteSyncStatusOutT } from '../../../shared/modules/sync/schema.js';
import { decode, MAX_REPORTED_GATES, SiteStatus } from '../../../shared/sync/protocol.js';

const online = {
  v: 1,
  state: 'online',
  schemaV: 11,
  version: '1.2.3',
  queued: 4,
  at: 1_700_000_000_000,
} as const;

describe('SiteStatus on the wire: gates are optional both ways', () => {
  it('a status from an older edge (no gates) and one from a newer edge (fields this cloud does not know) both parse', () => {
    expect(decode(SiteStatus, JSON.stringify(online))).toEqual(online);
    const newer = { ...online, gates: [{ gateId: 'g1', state: 'warming-up', since: 5 }], uptimeS: 12 };
    // Unknown keys are dropped, not a reason to refuse the status.
    expect(decode(SiteStatus, JSON.stringify(newer))).toEqual({
      ...online,
      gates: [{ gateId: 'g1', state: 'warming-up' }],
    });
  });

  it('refuses gates it cannot store: too many, or not a list of {gateId, state}', () => {
    const many = Array.from({ length: MAX_REPORTED_GATES + 1 }, (_, i) => ({ gateId: `g${i}`, state: 'ok' }));
    expect(decode(SiteStatus, JSON.stringify({ ...online, gates: many }))).toBeUndefined();
    expect(decode(SiteStatus, JSON.stringify({ ...online, gates: [{ gateId: 'g1' }] }))).toBeUndefined();
    expect(decode(SiteStatus, JSON.stringify({ ...online, gates: 'ok' }))).toBeUndefined();
  });
});

describe("a site's gates as the cloud stores and shows them", () => {
  it("maps the edge's driver states to the dashboard's words; an unknown one (even a prototype key) is unknown", () => {
    const stored = gatesToStore(
      {
        ...online,
        gates: [
          { gateId: 'a', state: 'ok' },
          { gateId: 'b', state: 'simulated' },
          { gateId: 'c', state: 'fault' },
          { gateId: 'd', state: 'opening' },
          { gateId: 'e', state: 'warming-up' },
          { gateId: 'f', state: '__proto__' },
          { gateId: 'g', state: 'constructor' },
        ],
      },
      null,
    );
    expect(storedGates(stored)).toEqual([
      { gateId: 'a', state: 'ok' },
      { gateId: 'b', state: 'ok' },
      { gateId: 'c', state: 'fault' },
      { gateId: 'd', state: 'opening' },
      { gateId: 'e', state: 'unknown' },
      { gateId: 'f', state: 'unknown' },
      { gateId: 'g', state: 'unknown' },
    ]);
  });

  it('offline: the gates last known, each unknown; an edge older than the field: null', () => {
    const known = gatesToStore({ ...online, gates: [{ gateId: 'a', state: 'fault' }] }, null);
    const offline = { ...online, state: 'offline' as const, queued: 0 };
    expect(storedGates(gatesToStore(offline, known))).toEqual([{ gateId: 'a', state: 'unknown' }]);
    expect(gatesToStore(offline, null)).toBeNull();
    expect(gatesToStore(online, known)).toBeNull();
    expect(storedGates('not json')).toBeNull();
  });
});

describe('site.status events', () => {
  const rowOf = (siteId: string, queued: number) =>
    ({ siteId, reportedQueued: queued }) as unknown as SiteSyncStatusOutT;

  async function world(everyMs: number) {
    const bus = new EventBus();
    const seen: PublishedEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    const current = new Map<string, number>();
    const events = new SiteStatusEvents(
      { bus, log: silentLogger() },
      { row: async (siteId) => rowOf(siteId, current.get(siteId) ?? 0), everyMs },
    );
    const sent = (siteId: string) =>
      seen
        .filter((e) => e.type === 'site.status' && e.data.siteId === siteId)
        .map((e) => (e.data as SiteSyncStatusOutT).reportedQueued);
    return { events, current, sent };
  }

  it('per site: the first change at once, a burst as one more event with the latest row; other sites unaffected', async () => {
    const { events, current, sent } = await world(300);
    for (let q = 1; q <= 10; q++) {
      current.set('a', q);
      events.changed('a', false);
    }
    current.set('b', 7);
    events.changed('b', false);
    await new Promise((r) => setTimeout(r, 50));
    expect(sent('a')).toEqual([10]);
    expect(sent('b')).toEqual([7]);
    for (let q = 11; q <= 20; q++) {
      current.set('a', q);
      events.changed('a', false);
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(sent('a')).toEqual([10]);
    await new Promise((r) => setTimeout(r, 400));
    expect(sent('a')).toEqual([10, 20]);
    await events.stop();
  });

  it('a change of link state is not held back by the throttle', async () => {
    const { events, current, sent } = await world(60_000);
    current.set('a', 1);
    events.changed('a', false);
    await new Promise((r) => setTimeout(r, 20));
    current.set('a', 2);
    events.changed('a', false);
    current.set('a', 3);
    events.changed('a', true);
    await new Promise((r) => setTimeout(r, 20));
    expect(sent('a')).toEqual([1, 3]);
    await events.stop();
    current.set('a', 4);
    events.changed('a', true);
    await new Promise((r) => setTimeout(r, 20));
    expect(sent('a')).toEqual([1, 3]);
  });
});
