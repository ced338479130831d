import type { Principal } from '../../auth/principal.js';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import type { Kdb } from '../../db/database.js';
import type { RelayBinding } from '../../hardware.js';
import { ConflictError, NotFoundError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import type { CameraService } from '../cameras/service.js';
import type { HardwareService } from '../hardware/service.js';
import type { GateCreateT, GateOutT, GatePatchT } from './gate-schema.js';
import { afterName, assertNameFree, ofYard, pageByName, type YardAccess } from './in-yard.js';
import { type GateRow, YardRepo } from './repo.js';

/** A gate row with its JSON columns parsed, for the hardware and movement modules. */
export type GateRecord = Omit<GateRow, 'relay' | 'cameraIds'> & {
  relay: RelayBinding | null;
  cameraIds: string[];
};

export type GateDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'> & {
  yards: YardAccess;
  /** A gate's cameras are bound to it (and unbound when it goes). */
  cameras: Pick<CameraService, 'bindToGate' | 'unbindGate'>;
  /** A relay binding that changes is handed to the gate hardware again. */
  hardware: Pick<HardwareService, 'reconfigure'>;
};

export class GateService {
  private readonly repo: YardRepo;

  constructor(private readonly deps: GateDeps) {
    this.repo = new YardRepo(deps.kysely);
  }

  async list(
    principal: Principal,
    yardId: string,
    opts: { limit: number; cursor?: string | undefined; direction?: GateRow['direction'] | undefined },
  ) {
    await this.deps.yards.getVisibleRow(principal, yardId);
    const rows = await this.repo.listGates({ ...opts, yardId, after: afterName(opts.cursor) });
    return pageByName(rows, opts.limit, gateOut);
  }

  async getRecord(yardId: string | undefined, gateId: string): Promise<GateRecord> {
    const row = await this.repo.gateById(gateId);
    if (!row || (yardId !== undefined && row.yardId !== yardId)) throw new NotFoundError('Gate', gateId);
    return gateRecord(row);
  }

  async create(principal: Principal, yardId: string, input: GateCreateT): Promise<GateOutT> {
    // Ownership first (the cloud answers edge-owned, naming the yard's site), before scope,
    // duplicate or in-use checks.
    this.deps.changes.assertMayWrite('gate', { yardId });
    await this.deps.yards.getVisibleRow(principal, yardId);
    const now = this.deps.clock.now();
    const row = await this.deps.kysely.transaction().execute(async (trx) => {
      await assertGateNameFree(trx, yardId, input.name);
      const gate = await this.deps.changes.insert(trx, 'gate', {
        id: newId(),
        yardId,
        name: input.name,
        direction: input.direction,
        relay: input.relay ? JSON.stringify(input.relay) : null,
        cameraIds: JSON.stringify(input.cameraIds ?? []),
        createdAt: now,
        updatedAt: now,
      });
      if (input.cameraIds?.length) await this.deps.cameras.bindToGate(trx, gate, input.cameraIds);
      return gate;
    });
    if (input.relay) await this.deps.hardware.reconfigure();
    return gateOut(row);
  }

  async update(
    principal: Principal,
    yardId: string,
    gateId: string,
    patch: GatePatchT,
    expectedVersion?: number,
  ): Promise<GateOutT> {
    this.deps.changes.assertMayWrite('gate', { yardId });
    this.deps.yards.assertInScope(principal, yardId);
    const row = await this.deps.kysely.transaction().execute(async (trx) => {
      await getGateOfYard(trx, yardId, gateId);
      if (patch.name !== undefined) await assertGateNameFree(trx, yardId, patch.name, gateId);
      const gate = await this.deps.changes.update(
        trx,
        'gate',
        gateId,
        {
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.direction !== undefined ? { direction: patch.direction } : {}),
          ...(patch.relay !== undefined ? { relay: patch.relay ? JSON.stringify(patch.relay) : null } : {}),
          ...(patch.cameraIds !== undefined ? { cameraIds: JSON.stringify(patch.cameraIds) } : {}),
        },
        expectedVersion === undefined ? {} : { expectedVersion },
      );
      if (gate && patch.cameraIds !== undefined) {
        await this.deps.cameras.bindToGate(trx, gate, patch.cameraIds);
      }
      return gate;
    });
    if (!row) throw new NotFoundError('Gate', gateId);
    if (patch.relay !== undefined) await this.deps.hardware.reconfigure();
    return gateOut(row);
  }

  /** A gate with movements or actuations stays for the audit trail. */
  async delete(principal: Principal, yardId: string, gateId: string): Promise<void> {
    this.deps.changes.assertMayWrite('gate', { yardId });
    this.deps.yards.assertInScope(principal, yardId);
    await this.deps.kysely.transaction().execute(async (trx) => {
      await getGateOfYard(trx, yardId, gateId);
      const refs = await new YardRepo(trx).gateReferences(gateId);
      if (refs.length > 0) {
        throw new ConflictError(
          'in-use',
          `The gate has ${refs.join(' and ')} on record and is kept for the audit trail. ` +
            'Rename it or remove its relay binding (relay: null) to take it out of service.',
          { references: refs },
        );
      }
      // Cameras are not history: they stay registered, bound to no gate.
      await this.deps.cameras.unbindGate(trx, gateId);
      await this.deps.changes.delete(trx, 'gate', gateId);
    });
    await this.deps.hardware.reconfigure();
  }
}

async function getGateOfYard(db: Kdb, yardId: string, gateId: string): Promise<GateRow> {
  return ofYard(await new YardRepo(db).gateById(gateId), yardId, 'Gate', gateId);
}

async function assertGateNameFree(db: Kdb, yardId: string, name: string, exceptId?: string): Promise<void> {
  assertNameFree(await new YardRepo(db).gateByName(yardId, name), 'gate', exceptId);
}

export function gateRecord(row: GateRow): GateRecord {
  return {
    ...row,
    relay: row.relay ? (JSON.parse(row.relay) as RelayBinding) : null,
    cameraIds: JSON.parse(row.cameraIds) as string[],
  };
}

export function gateOut(row: GateRow): GateOutT {
  const gate = gateRecord(row);
  return {
    id: gate.id,
    yardId: gate.yardId,
    name: gate.name,
    direction: gate.direction,
    relay: gate.relay,
    cameraIds: gate.cameraIds,
    createdAt: toIso(gate.createdAt),
    updatedAt: toIso(gate.updatedAt),
    version: gate.version,
  };
}
