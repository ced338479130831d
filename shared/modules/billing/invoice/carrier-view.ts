import type { IntegratorEvent } from '../../webhooks/port.js';
import { isCreditNote } from '../export/lines.js';
import { addDays, localDate } from '../export/money-format.js';
import type { InvoiceOutT } from './schema.js';

/**
 * An invoice as its carrier may see it (docs/domain.md "Carriers and integrators"): the number,
 * yard, period, amounts and the dates that matter to whoever pays it. The computation's
 * lines, annex, rates and who made it stay the yard's. Only issued and void invoices are ever
 * shown to a carrier; a draft is not final.
 */
export interface CarrierInvoice {
  id: string;
  number: string;
  yardId: string;
  yardName: string;
  carrierId: string;
  period: string;
  currency: string;
  subtotal: number;
  tax: number;
  total: number;
  status: 'issued' | 'void';
  issuedAt: string | null;
  /** The yard-local due day (YYYY-MM-DD) after the payment terms, as printed; a credit note has none. */
  dueAt: string | null;
  voidedAt: string | null;
  voidReason: string | null;
}

export function carrierInvoice(inv: InvoiceOutT, yardName: string): CarrierInvoice {
  if (inv.status === 'draft') throw new Error('a draft invoice is never shown to its carrier');
  const dueAt =
    inv.issuedAt && !isCreditNote(inv)
      ? addDays(localDate(Date.parse(inv.issuedAt), inv.timeZone), inv.paymentTermsDays)
      : null;
  return {
    id: inv.id,
    number: inv.number,
    yardId: inv.yardId,
    yardName,
    carrierId: inv.carrierId,
    period: inv.period,
    currency: inv.currency,
    subtotal: inv.subtotal,
    tax: inv.tax,
    total: inv.total,
    status: inv.status,
    issuedAt: inv.issuedAt,
    dueAt,
    voidedAt: inv.voidedAt,
    voidReason: inv.voidReason,
  };
}

/**
 * The webhook event of an issue or a void (docs/webhooks.md "Events"), ordered per invoice. Its
 * webhook-id is the invoice's id and the change, so the same change never makes two events.
 */
export function invoiceEvent(inv: InvoiceOutT, yardName: string, at: number): IntegratorEvent {
  const change = inv.status === 'void' ? 'voided' : 'issued';
  return {
    type: `invoice.${change}`,
    resourceKey: `invoice:${inv.id}`,
    sourceId: `${inv.id}_${change}`,
    yardId: inv.yardId,
    carrierId: inv.carrierId,
    data: { invoice: carrierInvoice(inv, yardName) },
    occurredAt: at,
  };
}
