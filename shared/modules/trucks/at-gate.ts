import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import { newId } from '../../ids.js';

/** What a gate movement says about a truck, written in the movement's transaction. */
export type TruckAtGate = {
  /** The yard it is now in, or null: out of every yard. */
  yardId: string | null;
} & ({ id: string } | { id: undefined; identity: NewTruck });

/** A truck not known yet, registered from what the gate saw. */
interface NewTruck {
  carrierId: string | null;
  unitNumber: string | null;
  plate: string;
  plateRegion: string | null;
}

/** Returns the truck's id (a new truck's too). */
export async function writeTruckAtGate(
  deps: Pick<CoreParts, 'changes'>,
  trx: Kdb,
  seen: TruckAtGate,
  now: number,
): Promise<string> {
  if (seen.id === undefined) {
    const row = await deps.changes.insert(trx, 'truck', {
      id: newId(),
      ...seen.identity,
      vin: null,
      yardId: seen.yardId,
      createdAt: now,
      updatedAt: now,
    });
    return row.id;
  }
  await deps.changes.update(trx, 'truck', seen.id, { yardId: seen.yardId });
  return seen.id;
}
