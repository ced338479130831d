import { type Principal, visibleOr404 } from '../../../auth/principal.js';
import type { CoreParts } from '../../../core-parts.js';
import { ConflictError, NotFoundError } from '../../../http/errors.js';
import { newId } from '../../../ids.js';
import type { CarrierService } from '../../carriers/service.js';
import type { YardService } from '../../yards/service.js';
import { carrierConfigOut, configExists, visibleYard, yardConfigOr404 } from './out.js';
import { BillingConfigRepo, type CarrierConfigRow, type YardConfigRow } from './repo.js';
import type {
  CarrierConfigCreateT,
  CarrierConfigOutT,
  CarrierConfigPatchT,
  CarrierConfigPutT,
} from './schema.js';

export type CarrierConfigDeps = Pick<CoreParts, 'kysely' | 'clock'> & {
  yards: Pick<YardService, 'getRow'>;
  carriers: Pick<CarrierService, 'getRow'>;
};

/**
 * The carriers' billing configs within a yard's (docs/domain.md "Billing"), by yard and carrier or
 * by their own id. A yard named in the path outside the caller's yard scope is 403, a carrier config
 * looked up by its id in such a yard 404. A carrier config needs its yard's config (409
 * `yard-config-missing` otherwise). Every answer carries the `effective` rates.
 */
export class CarrierConfigService {
  private readonly repo: BillingConfigRepo;

  constructor(private readonly deps: CarrierConfigDeps) {
    this.repo = new BillingConfigRepo(deps.kysely);
  }

  // ---- by yard and carrier ----

  async get(principal: Principal, yardId: string, carrierId: string): Promise<CarrierConfigOutT> {
    const { yard, carrier } = await this.carrierConfigIn(principal, yardId, carrierId);
    return carrierConfigOut(yard, carrier);
  }

  async create(
    principal: Principal,
    yardId: string,
    input: CarrierConfigCreateT,
  ): Promise<CarrierConfigOutT> {
    const { carrierId, ...fields } = input;
    const yard = await this.yardConfigForCarrierWrite(principal, yardId, carrierId);
    const now = this.deps.clock.now();
    const id = newId();
    const inserted = await this.repo.insertCarrierConfig({
      id,
      yardId,
      carrierId,
      ...fields,
      createdAt: now,
      updatedAt: now,
    });
    if (!inserted) {
      throw configExists(
        `Carrier ${carrierId} already has a billing config in yard ${yardId}. Change it with PUT or PATCH.`,
      );
    }
    return carrierConfigOut(yard, await this.carrierConfigOr404(yardId, carrierId));
  }

  /** Creates or replaces the whole carrier config (fields left out are null: inherit the yard's). */
  async put(
    principal: Principal,
    yardId: string,
    carrierId: string,
    fields: CarrierConfigPutT,
  ): Promise<{ config: CarrierConfigOutT; created: boolean }> {
    const yard = await this.yardConfigForCarrierWrite(principal, yardId, carrierId);
    const now = this.deps.clock.now();
    const created = await this.repo.insertCarrierConfig({
      id: newId(),
      yardId,
      carrierId,
      ...fields,
      createdAt: now,
      updatedAt: now,
    });
    const row = await this.carrierConfigOr404(yardId, carrierId);
    if (created) return { config: carrierConfigOut(yard, row), created };
    await this.repo.updateCarrierConfig(row.id, { ...fields, updatedAt: now });
    return { config: carrierConfigOut(yard, await this.carrierConfigOr404(yardId, carrierId)), created };
  }

  async patch(
    principal: Principal,
    yardId: string,
    carrierId: string,
    patch: CarrierConfigPatchT,
  ): Promise<CarrierConfigOutT> {
    const { yard, carrier } = await this.carrierConfigIn(principal, yardId, carrierId);
    return this.applyPatch(yard, carrier, patch);
  }

  async delete(principal: Principal, yardId: string, carrierId: string): Promise<void> {
    const { carrier } = await this.carrierConfigIn(principal, yardId, carrierId);
    await this.repo.deleteCarrierConfig(carrier.id);
  }

  // ---- by the carrier config's own id ----

  async getById(principal: Principal, id: string): Promise<CarrierConfigOutT> {
    const { yard, carrier } = await this.carrierConfigById(principal, id);
    return carrierConfigOut(yard, carrier);
  }

  async patchById(principal: Principal, id: string, patch: CarrierConfigPatchT): Promise<CarrierConfigOutT> {
    const { yard, carrier } = await this.carrierConfigById(principal, id);
    return this.applyPatch(yard, carrier, patch);
  }

  async deleteById(principal: Principal, id: string): Promise<void> {
    await this.carrierConfigById(principal, id);
    await this.repo.deleteCarrierConfig(id);
  }

  // ---- the checks, in order: scope, yard, carrier, config ----

  /** For a new carrier config: the yard and carrier exist, and the yard has its config. */
  private async yardConfigForCarrierWrite(
    principal: Principal,
    yardId: string,
    carrierId: string,
  ): Promise<YardConfigRow> {
    await visibleYard(this.deps.yards, principal, yardId);
    await this.deps.carriers.getRow(carrierId);
    const yard = await this.repo.yardConfig(yardId);
    if (!yard) {
      throw new ConflictError(
        'yard-config-missing',
        `Yard ${yardId} has no billing config yet: create it (currency, tax, default rates) before a carrier's.`,
      );
    }
    return yard;
  }

  private async carrierConfigIn(principal: Principal, yardId: string, carrierId: string) {
    await visibleYard(this.deps.yards, principal, yardId);
    await this.deps.carriers.getRow(carrierId);
    const yard = await this.repo.yardConfig(yardId);
    const carrier = yard ? await this.repo.carrierConfig(yardId, carrierId) : undefined;
    if (!yard || !carrier) throw carrierConfigNotFound(yardId, carrierId);
    return { yard, carrier };
  }

  private async carrierConfigOr404(yardId: string, carrierId: string): Promise<CarrierConfigRow> {
    const row = await this.repo.carrierConfig(yardId, carrierId);
    if (!row) throw carrierConfigNotFound(yardId, carrierId);
    return row;
  }

  private async carrierConfigById(principal: Principal, id: string) {
    const carrier = visibleOr404(
      principal,
      await this.repo.carrierConfigById(id),
      'Carrier billing config',
      id,
    );
    // The foreign key keeps a carrier config's yard config while it exists.
    const yard = await yardConfigOr404(this.repo, carrier.yardId);
    return { yard, carrier };
  }

  private async applyPatch(
    yard: YardConfigRow,
    carrier: CarrierConfigRow,
    patch: CarrierConfigPatchT,
  ): Promise<CarrierConfigOutT> {
    const values = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    await this.repo.updateCarrierConfig(carrier.id, { ...values, updatedAt: this.deps.clock.now() });
    return carrierConfigOut(yard, await this.carrierConfigOr404(carrier.yardId, carrier.carrierId));
  }
}

function carrierConfigNotFound(yardId: string, carrierId: string): NotFoundError {
  return new NotFoundError(`Billing config of carrier ${carrierId} in yard ${yardId}`);
}
