import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { assertClockWithinSkew } from '../../../shared/sync/clock-bounds.js';
import { DEFAULT_MAX_AHEAD_MS, format, Hlc } from '../../../shared/sync/hlc.js';
import { RowRejected } from '../../../shared/sync/row-errors.js';

/** docs/sync.md "Clock bounds": every clock a received change carries is checked against the bound. */
describe('a received change stamped too far ahead is refused (clock-bounds.ts)', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  const BOUND = 300_000;
  const at = (ms: number) => format(ms, 0, 'site-x');
  const hlc = () => new Hlc(new ManualClock(now), 'cloud', BOUND);
  const row = (clock: string, data: Record<string, unknown> = {}) => ({
    entity: 'trailer',
    id: 'tr-1',
    hlc: clock,
    data,
  });
  const refusal = (h: Hlc, r: ReturnType<typeof row>) => {
    try {
      assertClockWithinSkew(h, r);
    } catch (err) {
      expect(err).toBeInstanceOf(RowRejected);
      return (err as Error).message;
    }
    return undefined;
  };

  it('a change within the bound passes, up to the bound exactly', () => {
    expect(refusal(hlc(), row(at(now)))).toBeUndefined();
    expect(refusal(hlc(), row(at(now + BOUND), { hlc: at(now + BOUND) }))).toBeUndefined();
    expect(
      refusal(hlc(), row(at(now), { hlc: at(now), fieldHlc: JSON.stringify({ a: at(now + BOUND) }) })),
    ).toBeUndefined();
  });

  it('the change’s hlc one ms over the bound is refused, naming the rule and both figures', () => {
    expect(refusal(hlc(), row(at(now + BOUND + 1)))).toBe(
      "[clock-ahead] trailer tr-1 is stamped 300 s ahead of this side's clock (at most 300 s allowed): " +
        "fix the sender's clock, then retry",
    );
    expect(refusal(hlc(), row(at(now + BOUND + 61_000)))).toMatch(/stamped 361 s ahead/);
  });

  it('the row’s own hlc far ahead is refused though the change’s is fine', () => {
    expect(refusal(hlc(), row(at(now), { hlc: at(now + BOUND + 1) }))).toMatch(/^\[clock-ahead\]/);
  });

  it('one field clock far ahead is refused though the row’s hlc is fine', () => {
    const fields = JSON.stringify({ number: at(now), yardId: at(now + 365 * 86_400_000) });
    expect(refusal(hlc(), row(at(now), { hlc: at(now), fieldHlc: fields }))).toMatch(/^\[clock-ahead\]/);
  });

  it('a refused change never advances the clock; only the bound decides', () => {
    const h = hlc();
    expect(refusal(h, row(at(now), { fieldHlc: JSON.stringify({ a: at(now + BOUND + 1) }) }))).toBeDefined();
    expect(h.next()).toBe(format(now, 0, 'cloud'));
  });

  it('malformed clocks are refused as malformed', () => {
    expect(refusal(hlc(), row('yesterday'))).toBe(
      '[malformed] trailer tr-1 carries a malformed clock "yesterday"',
    );
    expect(refusal(hlc(), row(at(now), { hlc: 'x' }))).toMatch(/^\[malformed\] .* "x"/);
    expect(refusal(hlc(), row(at(now), { fieldHlc: '{not json' }))).toBe(
      '[malformed] fieldHlc of trailer tr-1 is not JSON',
    );
    expect(refusal(hlc(), row(at(now), { fieldHlc: JSON.stringify({ a: 12 }) }))).toMatch(
      /malformed clock "12"/,
    );
    // A row's hlc that is not a string, and field clocks that are not an object, carry no clock.
    expect(refusal(hlc(), row(at(now), { hlc: 12, fieldHlc: 'null' }))).toBeUndefined();
    expect(refusal(hlc(), row(at(now), { fieldHlc: { a: 'x' } }))).toBeUndefined();
    expect(refusal(hlc(), row(at(now), { fieldHlc: '"ab"' }))).toBeUndefined();
  });

  it('the default bound is 5 minutes: just under applies, just over is refused (not 1 minute, not years)', () => {
    expect(DEFAULT_MAX_AHEAD_MS).toBe(300_000);
    const h = new Hlc(new ManualClock(now), 'cloud');
    expect(refusal(h, row(at(now + 299_000)))).toBeUndefined();
    expect(refusal(h, row(at(now + 301_000)))).toMatch(/^\[clock-ahead\] .*at most 300 s allowed/);
  });
});
