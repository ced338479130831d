import { assertCanSeeYard, type Principal, visibleOr404 } from '../../../auth/principal.js';
import { toIso } from '../../../clock.js';
import type { CoreParts } from '../../../core-parts.js';
import { decodeCursor, toPage } from '../../../http/cursor.js';
import { ConflictError, NotFoundError } from '../../../http/errors.js';
import { newId } from '../../../ids.js';
import type { CarrierService } from '../../carriers/service.js';
import type { YardService } from '../../yards/service.js';
import { yardOut } from '../../yards/service.js';
import type { Rates } from '../compute/types.js';
import { assertBillingHere } from '../place.js';
import { effectiveRates } from './rates.js';
import { BillingConfigRepo, type CarrierConfigRow, type YardConfigRow } from './repo.js';
import type {
  CarrierConfigCreateT,
  CarrierConfigOutT,
  CarrierConfigPatchT,
  CarrierConfigPutT,
  YardConfigCreateT,
  YardConfigOutT,
  YardConfigPutT,
} from './schema.js';

export type BillingConfigDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes'> & {
  yards: Pick<YardService, 'getRow'>;
  carriers: Pick<CarrierService, 'getRow'>;
};

type PageOpts = { limit: number; cursor?: string | undefined };

/** The yard config and, when the carrier has one, its carrier config, with the rates in force. */
export interface BillingSetup {
  yard: YardConfigRow;
  carrier: CarrierConfigRow | undefined;
  rates: Rates;
}

/**
 * The yards' billing configs and the carriers' configs within them (DOMAIN.md "Billing").
 * Every operation first checks that billing lives here (409 cloud-owned at a linked edge); a yard
 * named in the path outside the caller's yard scope is 403, a carrier config looked up by its id in
 * such a yard 404. A carrier config needs its yard's config (409 yard-config-missing otherwise).
 */
export class BillingConfigService {
  private readonly repo: BillingConfigRepo;

  constructor(private readonly deps: BillingConfigDeps) {
    this.repo = new BillingConfigRepo(deps.kysely);
  }

  // ---- yard configs ----

  async list(principal: Principal, opts: PageOpts) {
    const rows = await this.pageOfYardConfigs(principal, opts);
    return toPage(rows, opts.limit, yardConfigOut, (r) => [r.yardId]);
  }

  async listWithCarriers(principal: Principal, opts: PageOpts) {
    const rows = await this.pageOfYardConfigs(principal, opts);
    const byYard = await this.carrierConfigsByYard(rows.slice(0, opts.limit));
    return toPage(
      rows,
      opts.limit,
      (y) => ({
        ...yardConfigOut(y),
        carriers: (byYard.get(y.yardId) ?? []).map((c) => carrierConfigOut(y, c)),
      }),
      (r) => [r.yardId],
    );
  }

  async listWithCarrierIds(principal: Principal, opts: PageOpts) {
    const rows = await this.pageOfYardConfigs(principal, opts);
    const byYard = await this.carrierConfigsByYard(rows.slice(0, opts.limit));
    return toPage(
      rows,
      opts.limit,
      (y) => ({ ...yardConfigOut(y), carrierIds: (byYard.get(y.yardId) ?? []).map((c) => c.carrierId) }),
      (r) => [r.yardId],
    );
  }

  async get(principal: Principal, yardId: string): Promise<YardConfigOutT> {
    return yardConfigOut(await this.visibleYardConfig(principal, yardId));
  }

  async getWithCarriers(principal: Principal, yardId: string) {
    const yard = await this.visibleYardConfig(principal, yardId);
    const carriers = await this.repo.carrierConfigsOf([yardId]);
    return { ...yardConfigOut(yard), carriers: carriers.map((c) => carrierConfigOut(yard, c)) };
  }

  /** The yard with its billing status: whether it has a config, and how many carrier configs. */
  async yardStatus(principal: Principal, yardId: string) {
    const yard = await this.visibleYard(principal, yardId);
    const config = await this.repo.yardConfig(yardId);
    return {
      yard: yardOut(yard),
      configured: config !== undefined,
      config: config ? yardConfigOut(config) : null,
      carriers: config ? await this.repo.countCarrierConfigs(yardId) : 0,
    };
  }

  async create(principal: Principal, input: YardConfigCreateT): Promise<YardConfigOutT> {
    const { yardId, ...fields } = input;
    await this.visibleYard(principal, yardId);
    const now = this.deps.clock.now();
    if (!(await this.repo.insertYardConfig({ yardId, ...fields, createdAt: now, updatedAt: now }))) {
      throw configExists(`Yard ${yardId} already has a billing config. Change it with PUT.`);
    }
    return yardConfigOut(await this.yardConfigOr404(yardId));
  }

  /** Creates or replaces the whole config (fields left out take their defaults). */
  async put(
    principal: Principal,
    yardId: string,
    fields: YardConfigPutT,
  ): Promise<{ config: YardConfigOutT; created: boolean }> {
    await this.visibleYard(principal, yardId);
    const now = this.deps.clock.now();
    const created = await this.repo.insertYardConfig({ yardId, ...fields, createdAt: now, updatedAt: now });
    if (!created) await this.repo.updateYardConfig(yardId, { ...fields, updatedAt: now });
    return { config: yardConfigOut(await this.yardConfigOr404(yardId)), created };
  }

  /** Deletes the yard's config and, by the foreign key's cascade, its carrier configs. */
  async delete(principal: Principal, yardId: string): Promise<void> {
    await this.visibleYard(principal, yardId);
    if (!(await this.repo.deleteYardConfig(yardId))) throw yardConfigNotFound(yardId);
  }

  // ---- carrier configs, by yard and carrier ----

  async getCarrier(principal: Principal, yardId: string, carrierId: string): Promise<CarrierConfigOutT> {
    const { yard, carrier } = await this.carrierConfigIn(principal, yardId, carrierId);
    return carrierConfigOut(yard, carrier);
  }

  async createCarrier(
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
  async putCarrier(
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

  async patchCarrier(
    principal: Principal,
    yardId: string,
    carrierId: string,
    patch: CarrierConfigPatchT,
  ): Promise<CarrierConfigOutT> {
    const { yard, carrier } = await this.carrierConfigIn(principal, yardId, carrierId);
    return this.applyPatch(yard, carrier, patch);
  }

  async deleteCarrier(principal: Principal, yardId: string, carrierId: string): Promise<void> {
    const { carrier } = await this.carrierConfigIn(principal, yardId, carrierId);
    await this.repo.deleteCarrierConfig(carrier.id);
  }

  // ---- carrier configs, by their own id ----

  async getCarrierById(principal: Principal, id: string): Promise<CarrierConfigOutT> {
    const { yard, carrier } = await this.carrierConfigById(principal, id);
    return carrierConfigOut(yard, carrier);
  }

  async patchCarrierById(
    principal: Principal,
    id: string,
    patch: CarrierConfigPatchT,
  ): Promise<CarrierConfigOutT> {
    const { yard, carrier } = await this.carrierConfigById(principal, id);
    return this.applyPatch(yard, carrier, patch);
  }

  async deleteCarrierById(principal: Principal, id: string): Promise<void> {
    await this.carrierConfigById(principal, id);
    await this.repo.deleteCarrierConfig(id);
  }

  // ---- for the summary and invoice services ----

  /** The yard's config row, or undefined when the yard has none (it is not billed). */
  yardConfigRow(yardId: string): Promise<YardConfigRow | undefined> {
    return this.repo.yardConfig(yardId);
  }

  /** The yard's and the carrier's configs with the rates in force; undefined when the yard has no config. */
  async setupFor(yardId: string, carrierId: string): Promise<BillingSetup | undefined> {
    const yard = await this.repo.yardConfig(yardId);
    if (!yard) return undefined;
    const carrier = await this.repo.carrierConfig(yardId, carrierId);
    return { yard, carrier, rates: effectiveRates(yard, carrier) };
  }

  /** The carrier configs of a yard (the carriers it has agreements with). */
  carrierConfigRows(yardId: string): Promise<CarrierConfigRow[]> {
    return this.repo.carrierConfigsOf([yardId]);
  }

  // ---- the checks, in order: billing here, scope, yard, config ----

  private async pageOfYardConfigs(principal: Principal, opts: PageOpts) {
    assertBillingHere(this.deps.changes);
    const afterYardId = opts.cursor ? String(decodeCursor(opts.cursor, 1)[0]) : undefined;
    return this.repo.listYardConfigs({ limit: opts.limit, afterYardId, yardIds: principal.yardIds });
  }

  private async carrierConfigsByYard(yards: YardConfigRow[]): Promise<Map<string, CarrierConfigRow[]>> {
    const byYard = new Map<string, CarrierConfigRow[]>();
    for (const c of await this.repo.carrierConfigsOf(yards.map((y) => y.yardId))) {
      const list = byYard.get(c.yardId) ?? [];
      list.push(c);
      byYard.set(c.yardId, list);
    }
    return byYard;
  }

  /** Billing here, the yard in the caller's scope (403) and existing (404). */
  private async visibleYard(principal: Principal, yardId: string) {
    assertBillingHere(this.deps.changes);
    assertCanSeeYard(principal, yardId);
    return this.deps.yards.getRow(yardId);
  }

  private async visibleYardConfig(principal: Principal, yardId: string): Promise<YardConfigRow> {
    await this.visibleYard(principal, yardId);
    return this.yardConfigOr404(yardId);
  }

  private async yardConfigOr404(yardId: string): Promise<YardConfigRow> {
    const row = await this.repo.yardConfig(yardId);
    if (!row) throw yardConfigNotFound(yardId);
    return row;
  }

  /** For a new carrier config: the yard and carrier exist, and the yard has its config. */
  private async yardConfigForCarrierWrite(
    principal: Principal,
    yardId: string,
    carrierId: string,
  ): Promise<YardConfigRow> {
    await this.visibleYard(principal, yardId);
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
    await this.visibleYard(principal, yardId);
    await this.deps.carriers.getRow(carrierId);
    const yard = await this.repo.yardConfig(yardId);
    const carrier = yard ? await this.repo.carrierConfig(yardId, carrierId) : undefined;
    if (!yard || !carrier) {
      throw new NotFoundError(`Billing config of carrier ${carrierId} in yard ${yardId}`);
    }
    return { yard, carrier };
  }

  private async carrierConfigOr404(yardId: string, carrierId: string): Promise<CarrierConfigRow> {
    const row = await this.repo.carrierConfig(yardId, carrierId);
    if (!row) throw new NotFoundError(`Billing config of carrier ${carrierId} in yard ${yardId}`);
    return row;
  }

  private async carrierConfigById(principal: Principal, id: string) {
    assertBillingHere(this.deps.changes);
    const carrier = visibleOr404(
      principal,
      await this.repo.carrierConfigById(id),
      'Carrier billing config',
      id,
    );
    // The foreign key keeps a carrier config's yard config while it exists.
    const yard = await this.yardConfigOr404(carrier.yardId);
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

function configExists(detail: string): ConflictError {
  return new ConflictError('billing-config-exists', detail);
}

function yardConfigNotFound(yardId: string): NotFoundError {
  return new NotFoundError(`Billing config of yard ${yardId}`);
}

export function yardConfigOut(row: YardConfigRow): YardConfigOutT {
  return {
    yardId: row.yardId,
    currency: row.currency,
    taxRateBp: row.taxRateBp,
    graceMinutes: row.graceMinutes,
    bookedSpaces: row.bookedSpaces,
    spaceMonthlyRate: row.spaceMonthlyRate,
    overageDailyRate: row.overageDailyRate,
    moveFee: row.moveFee,
    gateFee: row.gateFee,
    minimumMonthly: row.minimumMonthly,
    issuerName: row.issuerName,
    issuerAddress: row.issuerAddress,
    issuerTaxId: row.issuerTaxId,
    paymentTermsDays: row.paymentTermsDays,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}

export function carrierConfigOut(yard: YardConfigRow, row: CarrierConfigRow): CarrierConfigOutT {
  return {
    id: row.id,
    yardId: row.yardId,
    carrierId: row.carrierId,
    bookedSpaces: row.bookedSpaces,
    spaceMonthlyRate: row.spaceMonthlyRate,
    overageDailyRate: row.overageDailyRate,
    moveFee: row.moveFee,
    gateFee: row.gateFee,
    minimumMonthly: row.minimumMonthly,
    billToName: row.billToName,
    billToAddress: row.billToAddress,
    billToEmail: row.billToEmail,
    billToTaxId: row.billToTaxId,
    effective: { currency: yard.currency, ...effectiveRates(yard, row) },
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}
