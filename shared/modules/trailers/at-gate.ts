import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import type { LoadStatus, TrailerType } from '../../enums.js';
import { newId } from '../../ids.js';

/**
 * What a gate movement says about a trailer, written in the movement's transaction (the movement
 * is stored with it, or neither is).
 */
export type TrailerAtGate = {
  /** In the yard (and on a spot) since `arrivedAt`, or all null: out of every yard. */
  presence: { yardId: string | null; locationId: string | null; arrivedAt: number | null };
  /** Set when the movement says it; a known trailer keeps its own otherwise. */
  loadStatus?: LoadStatus | undefined;
  sealNumber?: string | null | undefined;
} & ({ id: string } | { id: undefined; identity: NewTrailer });

/** A trailer not known yet, registered from what the gate saw. */
interface NewTrailer {
  carrierId: string | null;
  number: string;
  plate: string | null;
  type?: TrailerType | undefined;
}

/** Returns the trailer's id (a new trailer's too). */
export async function writeTrailerAtGate(
  deps: Pick<CoreParts, 'changes'>,
  trx: Kdb,
  seen: TrailerAtGate,
  now: number,
): Promise<string> {
  if (seen.id === undefined) {
    const { identity } = seen;
    const row = await deps.changes.insert(trx, 'trailer', {
      id: newId(),
      carrierId: identity.carrierId,
      number: identity.number,
      plate: identity.plate,
      ...(identity.type ? { type: identity.type } : {}),
      ...(seen.loadStatus ? { loadStatus: seen.loadStatus } : {}),
      sealNumber: seen.sealNumber ?? null,
      ...seen.presence,
      createdAt: now,
      updatedAt: now,
    });
    return row.id;
  }
  await deps.changes.update(trx, 'trailer', seen.id, {
    ...seen.presence,
    ...(seen.loadStatus ? { loadStatus: seen.loadStatus } : {}),
    ...(seen.sealNumber ? { sealNumber: seen.sealNumber } : {}),
  });
  return seen.id;
}
