import { toIso } from '../../../clock.js';
import { ConflictError } from '../../../http/errors.js';
import { computationOut, type StoredComputation } from '../summary/service.js';
import type { InvoiceRow } from './repo.js';
import type { InvoiceOutT, InvoiceSummaryOutT } from './schema.js';

/**
 * An invoice as it is stored and answered, shared by generation (generation.ts), the lifecycle
 * (lifecycle.ts), the overage table (overage.ts) and the exports: the key, the frozen `content`, the
 * API's shapes, and the refusal both generation and the lifecycle give for an issued invoice.
 */

export interface InvoiceKey {
  yardId: string;
  carrierId: string;
  period: string;
}

/** What an invoice's `content` holds: the computation and the parties and terms it was made with. */
export interface InvoiceContent extends StoredComputation {
  issuer: { name: string | null; address: string | null; taxId: string | null };
  billTo: {
    carrierId: string;
    name: string | null;
    address: string | null;
    email: string | null;
    taxId: string | null;
    scac: string | null;
  };
  paymentTermsDays: number;
}

export function invoiceIssued(row: InvoiceRow): ConflictError {
  return new ConflictError(
    'invoice-issued',
    `Invoice ${row.number} is issued and cannot change: void it, then generate the period again.`,
    { invoiceId: row.id, number: row.number },
  );
}

export function invoiceSummaryOut(row: InvoiceRow): InvoiceSummaryOutT {
  return {
    id: row.id,
    number: row.number,
    exportNumber: row.exportNumber ?? row.number,
    sequence: row.sequence,
    status: row.status,
    issuedAt: row.issuedAt === null ? null : toIso(row.issuedAt),
    voidedAt: row.voidedAt === null ? null : toIso(row.voidedAt),
    voidReason: row.voidReason,
    yardId: row.yardId,
    carrierId: row.carrierId,
    period: row.period,
    currency: row.currency,
    subtotal: row.subtotal,
    tax: row.tax,
    total: row.total,
    generatedAt: toIso(row.generatedAt),
  };
}

export function invoiceOut(row: InvoiceRow): InvoiceOutT {
  const c = JSON.parse(row.content) as InvoiceContent;
  return {
    ...invoiceSummaryOut(row),
    ...computationOut(c, row),
    annex: c.result.annex.map((v) => ({
      trailerId: v.trailerId,
      trailerNumber: v.trailerNumber ?? null,
      inAt: toIso(v.inAt),
      outAt: v.outAt === null ? null : toIso(v.outAt),
      daysPresent: v.daysPresent,
      inMovementId: v.inMovementId,
      outMovementId: v.outMovementId,
      attachmentIds: v.attachmentIds,
    })),
    issuer: c.issuer,
    billTo: c.billTo,
    paymentTermsDays: c.paymentTermsDays,
    createdBy: row.createdBy,
  };
}
