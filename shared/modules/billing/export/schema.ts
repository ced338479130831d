import { Id } from '../../../http/common-schemas.js';
import { z } from '../../../http/zod.js';
import { Period } from '../summary/schema.js';
import { DATE_FORMATS } from './money-format.js';

export const EXPORT_FORMATS = ['xero', 'quickbooks'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Invoices and credit notes are imported through separate screens of each system: one file each. */
export const EXPORT_KINDS = ['invoice', 'credit-note'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** A BCP 47 tag that Intl knows, for the PDF's money and number formatting. */
const Locale = z
  .string()
  .max(35)
  .refine((tag) => {
    try {
      return Intl.NumberFormat.supportedLocalesOf([tag]).length > 0;
    } catch {
      return false;
    }
  }, 'not a locale this server can format for')
  .optional()
  .openapi({
    description: 'How money is written (BCP 47, e.g. en-US, de-DE, ja-JP); en-US when left out',
    example: 'en-US',
  });

export const PdfQuery = z.object({ locale: Locale });

export const CsvExportQuery = z.object({
  period: Period,
  format: z
    .enum(EXPORT_FORMATS)
    .openapi({ description: 'The accounting system whose import format to write' }),
  kind: z.enum(EXPORT_KINDS).default('invoice').openapi({
    description:
      'invoice: the issued invoices (Xero sales invoices, QuickBooks invoices); credit-note: the issued credit notes, i.e. negative totals (Xero credit notes, QuickBooks credit memos), with positive amounts. Default invoice',
  }),
  yardId: Id.optional().openapi({ description: 'Only this yard; every yard in scope when left out' }),
  dateFormat: z.enum(DATE_FORMATS).optional().openapi({
    description:
      'How dates are written; the import reads them in the order of the company’s region. Default: dd/mm/yyyy for Xero (its template’s), mm/dd/yyyy for QuickBooks Online (US)',
  }),
  accountCode: z.string().trim().min(1).max(30).optional().openapi({
    description: 'Xero: the revenue account code of every line (default 200, Xero’s standard Sales account)',
  }),
  taxType: z.string().trim().min(1).max(60).optional().openapi({
    description:
      'Xero: the tax rate’s display name in the organisation (default “Tax on Sales”, or “Tax Exempt” for a yard without tax)',
  }),
});

export type CsvExportQueryT = z.infer<typeof CsvExportQuery>;
