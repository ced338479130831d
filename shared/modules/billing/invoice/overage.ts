import type { Principal } from '../../../auth/principal.js';
import type { CoreParts } from '../../../core-parts.js';
import type { BillingCalculator } from '../calculator.js';
import type { BillingReads } from '../inputs.js';
import type { SummaryService } from '../summary/service.js';
import type { InvoiceContent, InvoiceKey } from './out.js';
import { InvoiceRepo } from './repo.js';

export type InvoiceOverageDeps = Pick<CoreParts, 'kysely' | 'clock'> &
  Pick<BillingReads, 'carriers'> & {
    calculator: Pick<BillingCalculator, 'calculate'>;
    summaries: Pick<SummaryService, 'configuredYard'>;
  };

/**
 * GET /invoice/overage: the per-day table of a period (peak trailers present, booked spaces,
 * overage), from the period's invoice (draft or issued) as it was frozen, or computed now when it
 * has none (also for the ongoing period: today is its peak so far).
 */
export class InvoiceOverage {
  private readonly repo: InvoiceRepo;

  constructor(private readonly deps: InvoiceOverageDeps) {
    this.repo = new InvoiceRepo(deps.kysely);
  }

  async overage(principal: Principal, key: InvoiceKey) {
    const { yard, config } = await this.deps.summaries.configuredYard(principal, key.yardId);
    await this.deps.carriers.getRow(key.carrierId);
    const live = await this.repo.live(key.yardId, key.carrierId, key.period);
    const frozen = live ? (JSON.parse(live.content) as InvoiceContent) : null;
    const result =
      frozen?.result ??
      (
        await this.deps.calculator.calculate({
          yard,
          carrierId: key.carrierId,
          period: key.period,
          now: this.deps.clock.now(),
          yardConfig: config,
        })
      ).result;
    return {
      yardId: key.yardId,
      carrierId: key.carrierId,
      period: key.period,
      currency: live?.currency ?? config.currency,
      source: live ? ('invoice' as const) : ('computed' as const),
      invoiceId: live?.id ?? null,
      overageDailyRate: result.rates.overageDailyRate,
      days: result.days,
      total: result.lines.overage.amount,
    };
  }
}
