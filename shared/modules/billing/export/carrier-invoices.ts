/**
 * A carrier's own invoices as its carrier users list them (docs/domain.md "Carriers and
 * integrators"): issued and void ones only (a draft is not final and is never shown), newest issue
 * first, with the yard's name and the due date its PDF prints. The rows come from billing's invoice
 * repository (InvoiceRepo.issuedOrVoidOfCarrier), so the carrier portal asks billing rather than its tables.
 */
import { canSeeYard, carrierOf, type Principal } from '../../../auth/principal.js';
import { toIso } from '../../../clock.js';
import { decodeCursor, toPage } from '../../../http/cursor.js';
import type { YardService } from '../../yards/service.js';
import type { InvoiceContent } from '../invoice/out.js';
import type { InvoiceRepo, InvoiceRow } from '../invoice/repo.js';
import { addDays, localDate } from './money-format.js';

export interface CarrierInvoice {
  id: string;
  number: string;
  yardId: string;
  yardName: string;
  period: string;
  currency: string;
  subtotal: number;
  tax: number;
  total: number;
  status: 'issued' | 'void';
  issuedAt: string;
  /** The yard-local due date (YYYY-MM-DD); null for a credit note (nothing to pay). */
  dueAt: string | null;
  voidedAt: string | null;
}

export interface CarrierInvoiceQuery {
  yardId?: string | undefined;
  period?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** The carrier user's page of invoices; a yard outside its scope is an empty page. */
export async function carrierInvoices(
  deps: { invoices: Pick<InvoiceRepo, 'issuedOrVoidOfCarrier'>; yards: Pick<YardService, 'getRow'> },
  principal: Principal,
  query: CarrierInvoiceQuery,
): Promise<{ items: CarrierInvoice[]; nextCursor: string | null }> {
  const carrierId = carrierOf(principal);
  if (carrierId === null || (query.yardId !== undefined && !canSeeYard(principal, query.yardId))) {
    return { items: [], nextCursor: null };
  }
  const after = query.cursor ? (decodeCursor(query.cursor, 2) as [number, string]) : undefined;
  const rows = await deps.invoices.issuedOrVoidOfCarrier({
    carrierId,
    limit: query.limit,
    yardId: query.yardId,
    yardIds: principal.yardIds,
    period: query.period,
    after: after && { issuedAt: after[0], id: after[1] },
  });
  const names = new Map<string, string>();
  for (const yardId of new Set(rows.map((r) => r.yardId))) {
    names.set(yardId, (await deps.yards.getRow(yardId)).name);
  }
  return toPage(
    rows,
    query.limit,
    (r) => carrierInvoiceOut(r, names.get(r.yardId) ?? ''),
    (r) => [r.issuedAt, r.id],
  );
}

/** One invoice as its carrier sees it (also the body of the invoice webhooks: invoice/carrier-view.ts). */
export function carrierInvoiceOut(row: InvoiceRow, yardName: string): CarrierInvoice {
  const content = JSON.parse(row.content) as InvoiceContent;
  const issuedAt = row.issuedAt ?? row.generatedAt;
  // The PDF's due date: the yard-local issue date plus the payment terms (export/pdf.ts).
  const issued = localDate(issuedAt, content.result.timeZone);
  return {
    id: row.id,
    number: row.number,
    yardId: row.yardId,
    yardName,
    period: row.period,
    currency: row.currency,
    subtotal: row.subtotal,
    tax: row.tax,
    total: row.total,
    status: row.status === 'void' ? 'void' : 'issued',
    issuedAt: toIso(issuedAt),
    dueAt: row.total < 0 ? null : addDays(issued, content.paymentTermsDays),
    voidedAt: row.voidedAt === null ? null : toIso(row.voidedAt),
  };
}
