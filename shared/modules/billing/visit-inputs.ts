import { sql } from 'kysely';
import type { Kdb } from '../../db/database.js';
import { attachmentIdsOfMovements } from '../../db/movement-attachments.js';
import type { Visit } from './compute/types.js';

/** [start, end) epoch ms. */
export interface Window {
  start: number;
  end: number;
}

/**
 * The trailer visits billing charges storage for (docs/domain.md "Billing"), with the photos of
 * their gate movements. Read in two index ranges (begun in the window; begun before it and still
 * present at its start) rather than scanning the carrier's whole history.
 */
export class VisitInputs {
  constructor(private readonly db: Kdb) {}

  /** The carrier's trailer visits present at some instant of the window, with their annex details. */
  async visits(yardId: string, carrierId: string, w: Window): Promise<Visit[]> {
    const base = () =>
      this.db
        .selectFrom('visit as v')
        .leftJoin('trailer as t', 't.id', 'v.trailerId')
        .innerJoin('movement as mi', 'mi.id', 'v.inMovementId')
        .leftJoin('movement as mo', 'mo.id', 'v.outMovementId')
        .select([
          'v.trailerId',
          't.number as trailerNumber',
          'v.inAt',
          'v.outAt',
          'v.inMovementId',
          'v.outMovementId',
          'mi.attachmentIds as inAttachments',
          'mo.attachmentIds as outAttachments',
        ])
        .where('v.yardId', '=', yardId)
        .where('v.carrierId', '=', carrierId)
        .where('v.unitKind', '=', 'trailer');
    // `+v.in_at` keeps SQLite on visit_carrier_out (yard, carrier, out_at) for the visits begun
    // before the window: a range on in_at would walk the carrier's whole history.
    const beganBefore = sql<number>`+v.in_at`;
    const rows = (
      await Promise.all([
        // Begun before the window and still in, or gone after its start (visit_carrier_out) ...
        base().where('v.outAt', 'is', null).where(beganBefore, '<', w.start).execute(),
        base().where('v.outAt', '>', w.start).where(beganBefore, '<', w.start).execute(),
        // ... or begun in it (visit_carrier: yard, carrier, in_at).
        base().where('v.inAt', '>=', w.start).where('v.inAt', '<', w.end).execute(),
      ])
    ).flat();
    const linked = await attachmentIdsOfMovements(
      this.db,
      rows.flatMap((r) => (r.outMovementId ? [r.inMovementId, r.outMovementId] : [r.inMovementId])),
    );
    return rows.map((r) => ({
      trailerId: r.trailerId ?? '',
      ...(r.trailerNumber ? { trailerNumber: r.trailerNumber } : {}),
      inAt: r.inAt,
      outAt: r.outAt,
      inMovementId: r.inMovementId,
      outMovementId: r.outMovementId,
      attachmentIds: [
        ...new Set([
          ...parseIds(r.inAttachments),
          ...parseIds(r.outAttachments),
          ...(linked.get(r.inMovementId) ?? []),
          ...((r.outMovementId && linked.get(r.outMovementId)) || []),
        ]),
      ].sort(),
    }));
  }
}

function parseIds(json: string | null): string[] {
  if (!json) return [];
  try {
    const ids = JSON.parse(json) as unknown;
    return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}
