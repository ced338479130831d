import type { Principal } from '../../../auth/principal.js';
import { assertCanSeeYard, canSeeYard, yardFilter } from '../../../auth/principal.js';
import { toIso } from '../../../clock.js';
import type { CoreParts } from '../../../core-parts.js';
import { decodeCursor, toPage } from '../../../http/cursor.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../../http/errors.js';
import { newId } from '../../../ids.js';
import { ADJUSTMENTS_PER_PERIOD_MAX } from '../bounds.js';
import type { BillingReads } from '../inputs.js';
import { AdjustmentRepo, type AdjustmentRow } from './repo.js';
import type { AdjustmentOutT } from './schema.js';

export type AdjustmentDeps = Pick<CoreParts, 'kysely' | 'clock'> & BillingReads;

/**
 * Invoice adjustments: signed amounts (credits negative) for a yard, carrier and period, summed into
 * the ADJUSTMENTS line. Once the period has an issued invoice they are frozen in it: adding,
 * changing or removing one is 409 `period-invoiced` (void the invoice first). A period takes at most
 * ADJUSTMENTS_PER_PERIOD_MAX of them (400 `too-many-adjustments`: bounds.ts). A draft is not
 * refreshed by itself: replace it (PUT) to take a new adjustment in.
 */
export class AdjustmentService {
  private readonly repo: AdjustmentRepo;

  constructor(private readonly deps: AdjustmentDeps) {
    this.repo = new AdjustmentRepo(deps.kysely);
  }

  async list(
    principal: Principal,
    query: {
      limit: number;
      cursor?: string | undefined;
      yardId?: string | undefined;
      carrierId?: string | undefined;
      period?: string | undefined;
    },
  ) {
    const afterId = query.cursor ? String(decodeCursor(query.cursor, 1)[0]) : undefined;
    const rows = await this.repo.list({ ...query, afterId, yardIds: yardFilter(principal, query.yardId) });
    return toPage(rows, query.limit, adjustmentOut, (r) => [r.id]);
  }

  async create(
    principal: Principal,
    input: { yardId: string; carrierId: string; period: string; amount: number; description: string },
  ): Promise<AdjustmentOutT> {
    await this.deps.yards.getRow(input.yardId);
    assertCanSeeYard(principal, input.yardId);
    await this.deps.carriers.getRow(input.carrierId);
    await this.assertOpen(input);
    // Counted and written under the period's lock: concurrent additions cannot pass the bound.
    const row = await this.deps.kysely.transaction().execute(async (trx) => {
      const repo = new AdjustmentRepo(trx);
      await repo.lockPeriod(input);
      if ((await repo.countFor(input)) >= ADJUSTMENTS_PER_PERIOD_MAX) {
        throw new BadRequestError(
          'too-many-adjustments',
          `This carrier already has ${ADJUSTMENTS_PER_PERIOD_MAX} adjustments for ${input.period} in this yard, the most a period takes: combine some of them into one.`,
        );
      }
      const now = this.deps.clock.now();
      return repo.insert({ id: newId(), ...input, createdBy: principal.id, createdAt: now, updatedAt: now });
    });
    return adjustmentOut(row);
  }

  async update(
    principal: Principal,
    id: string,
    patch: { amount?: number | undefined; description?: string | undefined },
  ) {
    const row = await this.visible(principal, id);
    await this.assertOpen(row);
    const updated = await this.repo.update(id, {
      ...(patch.amount !== undefined ? { amount: patch.amount } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      updatedAt: this.deps.clock.now(),
    });
    if (!updated) throw new NotFoundError('Invoice adjustment', id);
    return adjustmentOut(updated);
  }

  async delete(principal: Principal, id: string): Promise<void> {
    const row = await this.visible(principal, id);
    await this.assertOpen(row);
    await this.repo.delete(id);
  }

  private async visible(principal: Principal, id: string): Promise<AdjustmentRow> {
    const row = await this.repo.byId(id);
    if (!row || !canSeeYard(principal, row.yardId)) throw new NotFoundError('Invoice adjustment', id);
    return row;
  }

  private async assertOpen(key: { yardId: string; carrierId: string; period: string }): Promise<void> {
    const issued = await this.repo.issuedInvoice(key.yardId, key.carrierId, key.period);
    if (!issued) return;
    throw new ConflictError(
      'period-invoiced',
      `Period ${key.period} is invoiced (${issued.number}, issued): void that invoice before changing its adjustments.`,
      { invoiceId: issued.id, number: issued.number },
    );
  }
}

export function adjustmentOut(row: AdjustmentRow): AdjustmentOutT {
  return {
    id: row.id,
    yardId: row.yardId,
    carrierId: row.carrierId,
    period: row.period,
    amount: row.amount,
    description: row.description,
    createdBy: row.createdBy,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}
