import type { Response } from 'express';
import { CARRIER } from '../../../auth/principal.js';
import { IdParams } from '../../../http/common-schemas.js';
import type { BillingRoutes } from '../place.js';
import { invoicesCsv } from './csv.js';
import { invoicePdf } from './pdf.js';
import { CsvExportQuery, PdfQuery } from './schema.js';

const TAG = 'Billing';
const BILLING = ['admin', 'billing'] as const;

export function registerExportRoutes(r: BillingRoutes): void {
  r.add({
    method: 'get',
    path: '/api/billing/invoice/export',
    tag: TAG,
    summary:
      'the invoices or credit notes of a period as CSV (`period`, `format=xero|quickbooks`, `kind=invoice|credit-note`, `yardId?`)',
    description:
      'The ISSUED invoices of the period (drafts are not final, void invoices are cancelled), one row per line (each adjustment its own line), in the import format of Xero or QuickBooks Online. `kind=invoice` (default): the invoices, for Xero’s sales-invoice import or QuickBooks Online’s invoice import. `kind=credit-note`: the credit notes (negative totals), for Xero’s credit-note import or QuickBooks Online’s credit-memo import: no due date, amounts in the credit’s direction (the credit positive, a charge offsetting part of it negative; the document adds up to the positive credit). The number is `exportNumber` (at most 21 characters). Amounts are plain decimals, tax exclusive; Xero gets the tax per line in TaxAmount, QuickBooks the rate in TaxRate. Names are written exactly as entered (they are checked against formula-like text where they are entered); text stored before that check that a spreadsheet would run as a formula gets an apostrophe before each formula start; amounts are never escaped. Dates: dd/mm/yyyy for Xero, mm/dd/yyyy for QuickBooks unless `dateFormat` says otherwise. An empty period answers the header row only.',
    access: BILLING,
    query: CsvExportQuery,
    response: {
      contentType: 'text/csv',
      description: 'UTF-8 CSV with a header row, downloaded as a file',
      headers: {
        'Content-Disposition':
          'attachment; filename="invoices-<period>-<format>.csv" (credit notes: "credit-notes-<period>-<format>.csv")',
      },
    },
    errors: [404, 409],
    handler: async ({ principal, query, res }, { exports }) => {
      const items = await exports.issuedOf(principal, query.period, query.yardId);
      const csv = invoicesCsv(query.format, query.kind, items, query);
      const what = query.kind === 'invoice' ? 'invoices' : 'credit-notes';
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', attachment(`${what}-${query.period}-${query.format}.csv`));
      res.setHeader('Cache-Control', 'no-store');
      res.send(csv);
    },
  });

  r.add({
    method: 'get',
    path: '/api/billing/invoice/{id}/pdf',
    tag: TAG,
    summary: 'the invoice as PDF, with its per-visit annex',
    description:
      'A4: issuer and bill-to, number (and the accounting number beside it when the full one is longer than 21 characters), status (a draft is watermarked DRAFT, a void invoice VOID with its reason), period and the yard’s time zone, issue and due dates, lines, subtotal, tax and total; a negative total is titled CREDIT NOTE and has no due date or payment terms. Then the per-day overage table and the per-visit annex, with page numbers. Carrier users get their own carrier’s issued or void invoices only (a draft or another carrier’s is 404).',
    // A carrier user: its own carrier's issued or void invoice only, else 404 (export/service.ts one).
    access: [...BILLING, ...CARRIER],
    params: IdParams,
    query: PdfQuery,
    response: {
      contentType: 'application/pdf',
      description: 'The PDF, downloaded as `<number>.pdf`',
      headers: { 'Content-Disposition': 'attachment; filename="<number>.pdf"' },
    },
    errors: [404, 409],
    handler: async ({ principal, params, query, res }, { exports }) => {
      const item = await exports.one(principal, params.id);
      // Built whole before the first byte goes out, so a failure is still a problem answer.
      const doc = await invoicePdf(item, { locale: query.locale ?? 'en-US' });
      res.setHeader('Content-Type', 'application/pdf');
      res.setHeader('Content-Disposition', attachment(`${item.invoice.number}.pdf`));
      res.setHeader('Cache-Control', 'no-store');
      await streamTo(res, doc);
    },
  });
}

/** Invoice numbers are letters, digits and dashes; anything else is dropped from the file name. */
function attachment(filename: string): string {
  return `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`;
}

function streamTo(res: Response, doc: PDFKit.PDFDocument): Promise<void> {
  return new Promise((resolve, reject) => {
    res.on('finish', resolve);
    res.on('close', resolve);
    doc.on('error', reject);
    doc.pipe(res);
    doc.end();
  });
}
