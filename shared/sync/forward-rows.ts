import { SCHEMA_VERSION } from '../db/migrate.js';
import { type SqlWork, sqlRun, statement } from '../db/sql-work.js';
import { parseHlc } from './hlc.js';
import type { RoutingWork } from './routing.js';
import type { RowChange, RowEffect } from './row-change.js';
import type { Forward } from './touched.js';
import { dataOfShares } from './unit-shares.js';

/**
 * At the cloud: the other sites that need an applied row (a driver or trailer edited at one site)
 * get it in their change logs, in the same transaction, with the row's original origin; a unit's
 * identity or departure only where that is all a site needs, and the merged unit back to the
 * sender when the merge gave it what it lacked (routing.ts, unit-shares.ts). Routed here, as the
 * row applies (the routing reads the row's transaction); written by writeForwardedRows at the end
 * of the work (RowApplier.writeForwards).
 */
export function* routeForward(
  routing: RoutingWork,
  peer: string,
  row: RowChange,
  effect: RowEffect,
): SqlWork<Forward | undefined> {
  if (!effect.entity || !effect.stored) return undefined;
  const entity = effect.entity;
  const stored = effect.stored;
  const routes = yield* routing.routes(entity, stored, {
    op: row.op,
    before: effect.before,
    from: { site: peer, combined: effect.combined === true },
  });
  if (routes.length === 0) return undefined;
  const dataFor = dataOfShares(entity, row.op === 'delete' ? { [entity.key]: row.id } : stored, row.op);
  const hlc = row.op === 'delete' ? row.hlc : String(stored.hlc ?? row.hlc);
  const origin = parseHlc(row.hlc).origin;
  return {
    peers: routes.map((r) => r.peer),
    params: [entity.entity, row.id, row.op, hlc, origin, SCHEMA_VERSION],
    data: routes.map((r) => dataFor(r.share)),
  };
}

/**
 * Writes forwarded rows into the other sites' change logs, in the order given: one statement per
 * FORWARD_CHUNK rows (a trailer goes to every other site: one round trip, not one per site),
 * inserted in that order, so their seqs are in that order.
 */
export function* writeForwardedRows(forwards: readonly Forward[]): SqlWork<void> {
  const rows: unknown[][] = [];
  for (const f of forwards) {
    for (const [i, p] of f.peers.entries()) rows.push([p, ...f.params, f.data[i]]);
  }
  for (let i = 0; i < rows.length; i += FORWARD_CHUNK)
    yield* sqlRun(FORWARD, [JSON.stringify(rows.slice(i, i + FORWARD_CHUNK))]);
}

/** Forwarded rows per statement (8 values each, sent as one JSON parameter). */
const FORWARD_CHUNK = 1000;

/**
 * Forwarded rows from a JSON array of [peer, entity, entity_id, op, hlc, origin, schema_v, data],
 * inserted in array order (ORDER BY its index): the log's seqs follow that order.
 */
const FORWARD = statement('change_log|forward-many', 'changes', (dialect) =>
  dialect === 'postgres'
    ? 'INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data) ' +
      'SELECT r->>0, r->>1, r->>2, r->>3, r->>4, r->>5, (r->>6)::bigint, r->>7 ' +
      'FROM json_array_elements(?::json) WITH ORDINALITY AS f(r, n) ORDER BY n'
    : 'INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data) ' +
      'SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6, value->>7 ' +
      'FROM json_each(?) ORDER BY key',
);
