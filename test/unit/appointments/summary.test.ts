import { describe, expect, it } from 'vitest';
import { percentile, type SummaryRow, summarize } from '../../../shared/modules/appointments/summary.js';

/**
 * On-time, no-show, wait and turn figures per carrier and per door (shared/modules/appointments/
 * summary.ts), worked out by hand before the code ran.
 */
const MIN = 60_000;
const T0 = Date.parse('2026-03-02T08:00:00Z');

/** A row: arrival after `arrivedMin` minutes from T0 (start at T0), wait and turn in minutes. */
function row(
  carrier: 'A' | 'B',
  door: '2' | '10',
  status: SummaryRow['status'],
  arrival: SummaryRow['arrival'] = null,
  waitMin: number | null = null,
  turnMin: number | null = null,
): SummaryRow {
  const arrivedAt = arrival === null ? null : T0;
  return {
    carrierId: `c-${carrier}`,
    carrierName: carrier === 'A' ? 'Alpha Haul' : 'Beta Freight',
    doorId: `d-${door}`,
    doorName: `Door ${door}`,
    status,
    startAt: T0,
    arrivedAt,
    arrival,
    // clock start = T0 for every arrival here (arrivedAt = startAt), so wait = docked - T0.
    dockedAt: waitMin === null ? null : T0 + waitMin * MIN,
    departedAt: turnMin === null ? null : T0 + turnMin * MIN,
  };
}

describe('percentile: nearest rank', () => {
  it('takes the value at rank ceil(p/100 x n) of the sorted values', () => {
    const ten = [10, 3, 7, 1, 9, 2, 8, 4, 6, 5];
    // n 10: p50 rank 5 -> 5; p90 rank 9 -> 9; p100 rank 10 -> 10.
    expect([percentile(ten, 50), percentile(ten, 90), percentile(ten, 100)]).toEqual([5, 9, 10]);
    // n 3 [0, 10, 30]: p50 rank ceil(1.5) = 2 -> 10; p90 rank ceil(2.7) = 3 -> 30.
    expect([percentile([30, 0, 10], 50), percentile([30, 0, 10], 90)]).toEqual([10, 30]);
    // n 2 [10, 30]: p50 rank 1 -> 10; p90 rank ceil(1.8) = 2 -> 30.
    expect([percentile([30, 10], 50), percentile([30, 10], 90)]).toEqual([10, 30]);
    expect(percentile([], 50)).toBeNull();
    expect(() => percentile([1], 0)).toThrow(RangeError);
  });
});

describe('summarize: per carrier and per door', () => {
  // Alpha:  a1 Door 2  on time, wait 10, turn 60
  //         a2 Door 2  late,    wait 30, turn 90
  //         a3 Door 10 early,   wait 0,  turn 45
  //         a4 Door 10 no-show
  //         a5 Door 2  cancelled before arriving (not counted)
  // Beta:   b1 Door 10 on time, wait 20, turn 100
  //         b2 Door 10 on time, arrived, not docked nor departed
  //         b3 Door 2  scheduled (outcome not known yet)
  const rows: SummaryRow[] = [
    row('A', '2', 'completed', 'on_time', 10, 60),
    row('A', '2', 'completed', 'late', 30, 90),
    row('A', '10', 'completed', 'early', 0, 45),
    row('A', '10', 'no_show'),
    row('A', '2', 'cancelled'),
    row('B', '10', 'completed', 'on_time', 20, 100),
    row('B', '10', 'arrived', 'on_time'),
    row('B', '2', 'scheduled'),
  ];
  const s = summarize(rows);

  it('per carrier, by name', () => {
    // Alpha: 4 counted; arrived 3 (early 1, on time 1, late 1); no-shows 1; on time 1 / (3 + 1)
    // = 25.0 %. waits [0, 10, 30]: p50 10, p90 30. turns [45, 60, 90]: p50 60, p90 90.
    // Beta: 3 counted; arrived 2 (both on time); on time 2 / 2 = 100 %. wait [20], turn [100].
    expect(s.byCarrier).toEqual([
      {
        carrierId: 'c-A',
        carrierName: 'Alpha Haul',
        appointments: 4,
        arrived: 3,
        early: 1,
        onTime: 1,
        late: 1,
        noShows: 1,
        onTimePercent: 25,
        waitP50Minutes: 10,
        waitP90Minutes: 30,
        turnP50Minutes: 60,
        turnP90Minutes: 90,
      },
      {
        carrierId: 'c-B',
        carrierName: 'Beta Freight',
        appointments: 3,
        arrived: 2,
        early: 0,
        onTime: 2,
        late: 0,
        noShows: 0,
        onTimePercent: 100,
        waitP50Minutes: 20,
        waitP90Minutes: 20,
        turnP50Minutes: 100,
        turnP90Minutes: 100,
      },
    ]);
  });

  it('per door, in natural order (Door 2 before Door 10)', () => {
    // Door 2: a1, a2, b3 (a5 not counted): arrived 2 (on time 1, late 1), on time 1 / 2 = 50 %;
    //   waits [10, 30]: p50 10, p90 30; turns [60, 90]: p50 60, p90 90.
    // Door 10: a3, a4, b1, b2: arrived 3 (early 1, on time 2), no-shows 1, on time 2 / 4 = 50 %;
    //   waits [0, 20]: p50 0, p90 20; turns [45, 100]: p50 45, p90 100.
    expect(s.byDoor.map((d) => [d.doorName, d.appointments, d.arrived, d.noShows, d.onTimePercent])).toEqual([
      ['Door 2', 3, 2, 0, 50],
      ['Door 10', 4, 3, 1, 50],
    ]);
    expect(
      s.byDoor.map((d) => [d.waitP50Minutes, d.waitP90Minutes, d.turnP50Minutes, d.turnP90Minutes]),
    ).toEqual([
      [10, 30, 60, 90],
      [0, 20, 45, 100],
    ]);
  });

  it('over all', () => {
    // 7 counted; arrived 5 (early 1, on time 3, late 1); no-shows 1; on time 3 / 6 = 50 %.
    // waits [0, 10, 20, 30]: p50 rank 2 -> 10, p90 rank ceil(3.6) = 4 -> 30.
    // turns [45, 60, 90, 100]: p50 60, p90 100.
    expect(s.all).toEqual({
      appointments: 7,
      arrived: 5,
      early: 1,
      onTime: 3,
      late: 1,
      noShows: 1,
      onTimePercent: 50,
      waitP50Minutes: 10,
      waitP90Minutes: 30,
      turnP50Minutes: 60,
      turnP90Minutes: 100,
    });
  });

  it('one decimal; nothing known is null; a late-cancelled arrival keeps its class', () => {
    // on time 1 of 3 known: 33.3 %; 2 of 3: 66.7 %.
    const third = summarize([
      row('A', '2', 'completed', 'on_time'),
      row('A', '2', 'completed', 'late'),
      row('A', '2', 'no_show'),
    ]);
    expect(third.all.onTimePercent).toBe(33.3);
    const twoThirds = summarize([
      row('A', '2', 'completed', 'on_time'),
      row('A', '2', 'completed', 'on_time'),
      row('A', '2', 'completed', 'early'),
    ]);
    expect(twoThirds.all.onTimePercent).toBe(66.7);
    const pending = summarize([row('B', '2', 'scheduled')]);
    expect(pending.all).toMatchObject({ appointments: 1, onTimePercent: null, waitP50Minutes: null });
    // Turned away after arriving late: cancelled, but counted as a late arrival.
    const turnedAway = summarize([row('A', '2', 'cancelled', 'late')]);
    expect(turnedAway.all).toMatchObject({ appointments: 1, arrived: 1, late: 1, onTimePercent: 0 });
    expect(summarize([])).toEqual({
      all: expect.objectContaining({ appointments: 0 }),
      byCarrier: [],
      byDoor: [],
    });
  });
});
