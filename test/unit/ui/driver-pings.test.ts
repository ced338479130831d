import { describe, expect, it } from 'vitest';
import { MAX_BATCH, PingBatcher, type Point, pointOf } from '../../../shared/ui/driver/pings';

function point(i: number): Point {
  return { at: new Date(Date.UTC(2026, 10, 25, 8, 0, i)).toISOString(), lat: 32 + i / 1e4, lon: -96 };
}

describe('location pings in batches', () => {
  it('sends once 100 fixes wait, oldest first', async () => {
    const batches: Point[][] = [];
    const b = new PingBatcher({ send: async (p) => void batches.push(p) });
    for (let i = 0; i < 99; i++) await b.add(point(i));
    expect(batches).toEqual([]);
    await b.add(point(99));
    expect(batches.map((x) => x.length)).toEqual([100]);
    expect(batches[0]?.[0]).toEqual(point(0));
    expect(b.waiting).toBe(0);
    expect(b.sent).toBe(100);
  });

  it('keeps the fixes while the link is down and sends them later in batches of at most 500', async () => {
    let up = false;
    const batches: number[] = [];
    const b = new PingBatcher({
      flushAt: 1e9,
      send: async (p) => {
        if (!up) throw { status: 0 };
        batches.push(p.length);
      },
    });
    for (let i = 0; i < 1200; i++) await b.add(point(i));
    await b.flush();
    expect(b.waiting).toBe(1200);
    up = true;
    await b.flush();
    expect(batches).toEqual([MAX_BATCH, MAX_BATCH, 200]);
    expect(b.waiting).toBe(0);
  });

  it('drops the oldest beyond the cap, and a batch the server refuses', async () => {
    const b = new PingBatcher({ flushAt: 1e9, cap: 10, send: async () => Promise.reject({ status: 409 }) });
    for (let i = 0; i < 15; i++) await b.add(point(i));
    expect(b.waiting).toBe(10);
    expect(b.dropped).toBe(5);
    await b.flush();
    expect(b.waiting).toBe(0);
    expect(b.dropped).toBe(15);
  });

  it('does not send the same fixes twice when flushes overlap; fixes added meanwhile stay', async () => {
    const sent: Point[][] = [];
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const b = new PingBatcher({
      flushAt: 1e9,
      send: async (p) => {
        sent.push(p);
        await gate;
      },
    });
    await b.add(point(1));
    const first = b.flush();
    await b.flush(); // already sending: returns at once
    await b.add(point(2));
    open();
    await first;
    expect(sent).toEqual([[point(1)], [point(2)]]);
    expect(b.waiting).toBe(0);
  });

  it('turns a browser fix into the API point, leaving out what the phone did not give', () => {
    const fix = {
      timestamp: Date.UTC(2026, 10, 25, 8),
      coords: { latitude: 32.7, longitude: -96.8, accuracy: 7, speed: null, heading: Number.NaN },
    };
    expect(pointOf(fix)).toEqual({ at: '2026-11-25T08:00:00.000Z', lat: 32.7, lon: -96.8, accuracyM: 7 });
    expect(pointOf({ ...fix, coords: { ...fix.coords, speed: 3, heading: 90 } })).toMatchObject({
      speed: 3,
      heading: 90,
    });
  });
});
