import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { ConflictError, NotFoundError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import { CarrierRepo, type CarrierRow } from './repo.js';
import type { CarrierCreateT, CarrierOutT, CarrierPatchT } from './schema.js';

export type CarrierDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'>;

export class CarrierService {
  private readonly repo: CarrierRepo;

  constructor(private readonly deps: CarrierDeps) {
    this.repo = new CarrierRepo(deps.kysely);
  }

  async list(opts: {
    limit: number;
    cursor?: string | undefined;
    q?: string | undefined;
    status?: string | undefined;
    ids?: string[] | undefined;
  }) {
    const afterId = opts.cursor ? String(decodeCursor(opts.cursor, 1)[0]) : undefined;
    const rows = await this.repo.list({ ...opts, afterId });
    return toPage(rows, opts.limit, carrierOut, (r) => [r.id]);
  }

  /** Carriers matching a typed name or SCAC, best first: 3 is the text, 2 starts with it, 1 contains it. */
  async search(q: string, limit: number): Promise<Array<{ rank: 1 | 2 | 3; row: CarrierRow }>> {
    const rows = await this.repo.search(q, limit);
    return rows.map(({ rank, nameRank: _n, scacRank: _s, ...row }) => ({ rank: rank as 1 | 2 | 3, row }));
  }

  async get(id: string): Promise<CarrierOutT> {
    return carrierOut(await this.getRow(id));
  }

  async getRow(id: string): Promise<CarrierRow> {
    const row = await this.repo.byId(id);
    if (!row) throw new NotFoundError('Carrier', id);
    return row;
  }

  async create(input: CarrierCreateT): Promise<CarrierOutT> {
    // Ownership first (a linked edge answers cloud-owned), before duplicate or in-use checks.
    this.deps.changes.assertMayWrite('carrier');
    if (input.scac) await this.assertScacFree(input.scac);
    const now = this.deps.clock.now();
    const row = await this.deps.changes.insert(this.deps.kysely, 'carrier', {
      id: newId(),
      name: input.name,
      scac: input.scac ?? null,
      usdot: input.usdot ?? null,
      status: input.status ?? 'active',
      blockedReason: input.blockedReason ?? null,
      contact: input.contact ? JSON.stringify(input.contact) : null,
      createdAt: now,
      updatedAt: now,
    });
    return carrierOut(row);
  }

  async update(id: string, patch: CarrierPatchT, expectedVersion?: number): Promise<CarrierOutT> {
    this.deps.changes.assertMayWrite('carrier');
    if (patch.scac) await this.assertScacFree(patch.scac, id);
    const row = await this.deps.changes.update(
      this.deps.kysely,
      'carrier',
      id,
      {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.scac !== undefined ? { scac: patch.scac } : {}),
        ...(patch.usdot !== undefined ? { usdot: patch.usdot } : {}),
        ...(patch.status !== undefined ? { status: patch.status } : {}),
        ...(patch.blockedReason !== undefined ? { blockedReason: patch.blockedReason } : {}),
        ...(patch.contact !== undefined
          ? { contact: patch.contact ? JSON.stringify(patch.contact) : null }
          : {}),
      },
      expectedVersion === undefined ? {} : { expectedVersion },
    );
    if (!row) throw new NotFoundError('Carrier', id);
    return carrierOut(row);
  }

  /** A carrier with history (drivers, units, movements) is kept for the record: block it instead. */
  async delete(id: string): Promise<void> {
    this.deps.changes.assertMayWrite('carrier');
    await this.getRow(id);
    if (await this.repo.isReferenced(id)) {
      throw new ConflictError(
        'in-use',
        'The carrier has drivers, units or movements. Set its status to blocked instead.',
      );
    }
    await this.deps.changes.delete(this.deps.kysely, 'carrier', id);
  }

  private async assertScacFree(scac: string, exceptId?: string): Promise<void> {
    const existing = await this.repo.byScac(scac);
    if (existing && existing.id !== exceptId) {
      throw new ConflictError('duplicate', `Carrier ${existing.name} already has SCAC ${scac}.`, {
        existingId: existing.id,
      });
    }
  }
}

export function carrierOut(row: CarrierRow): CarrierOutT {
  return {
    id: row.id,
    name: row.name,
    scac: row.scac,
    usdot: row.usdot,
    status: row.status,
    blockedReason: row.blockedReason,
    contact: row.contact ? (JSON.parse(row.contact) as CarrierOutT['contact']) : null,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    version: row.version,
  };
}
