import type { Principal } from '../../../auth/principal.js';
import type { CoreParts } from '../../../core-parts.js';
import { decodeCursor, toPage } from '../../../http/cursor.js';
import type { YardService } from '../../yards/service.js';
import { yardOut } from '../../yards/service.js';
import {
  carrierConfigOut,
  configExists,
  visibleYard,
  yardConfigNotFound,
  yardConfigOr404,
  yardConfigOut,
} from './out.js';
import { BillingConfigRepo, type CarrierConfigRow, type YardConfigRow } from './repo.js';
import type { YardConfigCreateT, YardConfigOutT, YardConfigPutT } from './schema.js';

export type BillingConfigDeps = Pick<CoreParts, 'kysely' | 'clock'> & {
  yards: Pick<YardService, 'getRow'>;
};

type PageOpts = { limit: number; cursor?: string | undefined };

/**
 * The yards' billing configs (docs/domain.md "Billing"), listed with their carriers' configs where
 * asked (carrier-service.ts writes those). A yard named in the path outside the caller's yard scope
 * is 403; a yard without a config is 404 on reads.
 */
export class BillingConfigService {
  private readonly repo: BillingConfigRepo;

  constructor(private readonly deps: BillingConfigDeps) {
    this.repo = new BillingConfigRepo(deps.kysely);
  }

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
    const yard = await visibleYard(this.deps.yards, principal, yardId);
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
    await visibleYard(this.deps.yards, principal, yardId);
    const now = this.deps.clock.now();
    if (!(await this.repo.insertYardConfig({ yardId, ...fields, createdAt: now, updatedAt: now }))) {
      throw configExists(`Yard ${yardId} already has a billing config. Change it with PUT.`);
    }
    return yardConfigOut(await yardConfigOr404(this.repo, yardId));
  }

  /** Creates or replaces the whole config (fields left out take their defaults). */
  async put(
    principal: Principal,
    yardId: string,
    fields: YardConfigPutT,
  ): Promise<{ config: YardConfigOutT; created: boolean }> {
    await visibleYard(this.deps.yards, principal, yardId);
    const now = this.deps.clock.now();
    const created = await this.repo.insertYardConfig({ yardId, ...fields, createdAt: now, updatedAt: now });
    if (!created) await this.repo.updateYardConfig(yardId, { ...fields, updatedAt: now });
    return { config: yardConfigOut(await yardConfigOr404(this.repo, yardId)), created };
  }

  /** Deletes the yard's config and, by the foreign key's cascade, its carrier configs. */
  async delete(principal: Principal, yardId: string): Promise<void> {
    await visibleYard(this.deps.yards, principal, yardId);
    if (!(await this.repo.deleteYardConfig(yardId))) throw yardConfigNotFound(yardId);
  }

  private async pageOfYardConfigs(principal: Principal, opts: PageOpts) {
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

  private async visibleYardConfig(principal: Principal, yardId: string): Promise<YardConfigRow> {
    await visibleYard(this.deps.yards, principal, yardId);
    return yardConfigOr404(this.repo, yardId);
  }
}
