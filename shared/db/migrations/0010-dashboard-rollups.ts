/**
 * Dashboard figures kept current as the data changes (shared/modules/dashboard/rollups/): written in
 * the same transaction as each change of a trailer, truck, movement or visit row, read by the
 * dashboard routes instead of scanning history. Local read models: never synced, each side keeps its
 * own. No foreign keys: a rollup row must never hold back the deletion of what it counts.
 *
 * - dashboard_movement_count: gate movements per scope (a yard id, or '*' for every yard), grain
 *   (bucket length in ms: 900000 quarter hour, 3600000 hour, 86400000 day; all UTC-aligned) and
 *   bucket (its start, epoch ms) and direction. Yards get all three grains, '*' hour and day.
 * - dashboard_yard_figure: per yard, counters of what is in it now (figure + item: see rules.ts),
 *   n and a sum (total) for means.
 * - dashboard_truck_arrival: per truck and yard, its latest check-in there (max visit in_at).
 *
 * The backfill below recounts from the existing rows; it is the same count as
 * rebuildDashboardRollups (test/integration/dashboard/rollups.test.ts checks they agree), kept here
 * as it was shipped.
 */
export const up = `
CREATE TABLE dashboard_movement_count (
  scope TEXT NOT NULL,
  grain INTEGER NOT NULL,
  bucket INTEGER NOT NULL,
  direction TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (scope, grain, bucket, direction)
) WITHOUT ROWID;

CREATE TABLE dashboard_yard_figure (
  yard_id TEXT NOT NULL,
  figure TEXT NOT NULL,
  item TEXT NOT NULL,
  n INTEGER NOT NULL,
  total INTEGER NOT NULL,
  PRIMARY KEY (yard_id, figure, item)
) WITHOUT ROWID;

CREATE TABLE dashboard_truck_arrival (
  truck_id TEXT NOT NULL,
  yard_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (truck_id, yard_id)
) WITHOUT ROWID;

-- Open visits of a yard in check-in order (dwell longest or shortest first) with a LIMIT, without
-- sorting every open visit of the yard.
CREATE INDEX visit_open_in ON visit (yard_id, in_at) WHERE out_at IS NULL;

INSERT INTO dashboard_movement_count (scope, grain, bucket, direction, n)
SELECT yard_id, 900000, (at / 900000) * 900000, direction, count(*) FROM movement GROUP BY 1, 2, 3, 4;
INSERT INTO dashboard_movement_count (scope, grain, bucket, direction, n)
SELECT yard_id, 3600000, (at / 3600000) * 3600000, direction, count(*) FROM movement GROUP BY 1, 2, 3, 4;
INSERT INTO dashboard_movement_count (scope, grain, bucket, direction, n)
SELECT yard_id, 86400000, (at / 86400000) * 86400000, direction, count(*) FROM movement GROUP BY 1, 2, 3, 4;
INSERT INTO dashboard_movement_count (scope, grain, bucket, direction, n)
SELECT '*', 3600000, (at / 3600000) * 3600000, direction, count(*) FROM movement GROUP BY 1, 2, 3, 4;
INSERT INTO dashboard_movement_count (scope, grain, bucket, direction, n)
SELECT '*', 86400000, (at / 86400000) * 86400000, direction, count(*) FROM movement GROUP BY 1, 2, 3, 4;

INSERT INTO dashboard_truck_arrival (truck_id, yard_id, at)
SELECT truck_id, yard_id, max(in_at) FROM visit WHERE truck_id IS NOT NULL GROUP BY truck_id, yard_id;

INSERT INTO dashboard_yard_figure (yard_id, figure, item, n, total)
SELECT yard_id, 'trailer-load', load_status, count(*), 0 FROM trailer WHERE yard_id IS NOT NULL GROUP BY yard_id, load_status;
INSERT INTO dashboard_yard_figure (yard_id, figure, item, n, total)
SELECT yard_id, 'trailer-carrier', coalesce(carrier_id, ''), count(*), 0 FROM trailer WHERE yard_id IS NOT NULL GROUP BY 1, 2, 3;
INSERT INTO dashboard_yard_figure (yard_id, figure, item, n, total)
SELECT yard_id, 'trailer-visit', '', count(*), sum(in_at) FROM visit WHERE unit_kind = 'trailer' AND out_at IS NULL GROUP BY yard_id;
INSERT INTO dashboard_yard_figure (yard_id, figure, item, n, total)
SELECT yard_id, 'truck', '', count(*), 0 FROM truck WHERE yard_id IS NOT NULL GROUP BY yard_id;
INSERT INTO dashboard_yard_figure (yard_id, figure, item, n, total)
SELECT truck.yard_id, 'truck-arrival', '', count(*), sum(dashboard_truck_arrival.at)
FROM truck JOIN dashboard_truck_arrival
  ON dashboard_truck_arrival.truck_id = truck.id AND dashboard_truck_arrival.yard_id = truck.yard_id
GROUP BY truck.yard_id;
`;
