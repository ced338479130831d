import type { IntegratorEvent } from '../../webhooks/port.js';
import { carrierInvoiceOut } from '../export/carrier-invoices.js';
import type { InvoiceRow } from './repo.js';

/**
 * The webhook event of an issue or a void (docs/webhooks.md "Events"), ordered per invoice:
 * `data.invoice` is the invoice as its carrier sees it in the portal (export/carrier-invoices.ts),
 * with the carrier's id (an endpoint may serve several carriers) and, once void, why. Its
 * webhook-id is the invoice's id and the change, so the same change never makes two events.
 */
export function invoiceEvent(row: InvoiceRow, yardName: string, at: number): IntegratorEvent {
  const change = row.status === 'void' ? 'voided' : 'issued';
  return {
    type: `invoice.${change}`,
    resourceKey: `invoice:${row.id}`,
    sourceId: `${row.id}_${change}`,
    yardId: row.yardId,
    carrierId: row.carrierId,
    data: {
      invoice: { ...carrierInvoiceOut(row, yardName), carrierId: row.carrierId, voidReason: row.voidReason },
    },
    occurredAt: at,
  };
}
