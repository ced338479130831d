import { stringify } from 'csv-stringify/sync';
import { invoiceLines, spreadTax } from './lines.js';
import { addDays, type DateFormat, decimalAmount, localDate, percentOf, writeDate } from './money-format.js';
import type { ExportFormat } from './schema.js';
import type { ExportInvoice } from './service.js';

/** What the caller may set for the import (the accounting system's own names for things). */
export interface CsvOptions {
  dateFormat?: DateFormat | undefined;
  accountCode?: string | undefined;
  taxType?: string | undefined;
}

/** A cell is text (escaped against formulas) or a number we wrote ourselves (left as it is). */
type Cell = { text: string | null } | { number: string };
const text = (value: string | null | undefined): Cell => ({ text: value ?? null });
const num = (value: string): Cell => ({ number: value });

/**
 * A text cell that a spreadsheet would run as a formula (OWASP "CSV injection": it starts with
 * = + - @, a tab or a carriage return) gets a leading apostrophe. Only text is escaped: an amount we
 * formatted from an integer, such as -20.00, must stay a number for the import to read it.
 */
export function escapeFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

function cellValue(cell: Cell): string {
  if ('number' in cell) return cell.number;
  return cell.text === null ? '' : escapeFormula(cell.text);
}

/** The invoice date (the yard-local day it was issued) and the due date after the payment terms. */
function dates(inv: ExportInvoice['invoice']) {
  const issued = localDate(Date.parse(inv.issuedAt ?? inv.generatedAt), inv.timeZone);
  return { issued, due: addDays(issued, inv.paymentTermsDays) };
}

/** Up to four address lines from the free-text address (its own lines, else its comma parts). */
function addressLines(address: string | null): string[] {
  if (!address) return [];
  const byLine = address
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter(Boolean);
  const parts =
    byLine.length > 1
      ? byLine
      : address
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  if (parts.length <= 4) return parts;
  return [...parts.slice(0, 3), parts.slice(3).join(', ')];
}

/**
 * Xero's sales invoice import (its template's columns; `*` marks what Xero requires). One row per
 * line; rows with the same InvoiceNumber make one invoice. Amounts are tax exclusive (choose "Tax
 * exclusive" on import); the invoice's tax is given per line in TaxAmount (spread so that it adds up
 * to the invoice's tax exactly). Tracking is left empty: a tracking category Xero does not have would
 * fail the import. A credit note (negative total) is written like an invoice, with its negative
 * amounts, so the file still adds up; Xero takes credit notes through its own import (positive
 * amounts), so the clerk enters those there.
 */
const XERO_COLUMNS = [
  '*ContactName',
  'EmailAddress',
  'POAddressLine1',
  'POAddressLine2',
  'POAddressLine3',
  'POAddressLine4',
  'POCity',
  'PORegion',
  'POPostalCode',
  'POCountry',
  '*InvoiceNumber',
  'Reference',
  '*InvoiceDate',
  '*DueDate',
  'InventoryItemCode',
  '*Description',
  '*Quantity',
  '*UnitAmount',
  'Discount',
  '*AccountCode',
  '*TaxType',
  'TaxAmount',
  'TrackingName1',
  'TrackingOption1',
  'TrackingName2',
  'TrackingOption2',
  'Currency',
  'BrandingTheme',
];

function xeroRows(items: readonly ExportInvoice[], options: CsvOptions): Cell[][] {
  const rows: Cell[][] = [];
  for (const { invoice: inv, yard, adjustments } of items) {
    const lines = invoiceLines(inv, adjustments);
    const taxes = spreadTax(lines, inv.tax, inv.subtotal);
    const { issued, due } = dates(inv);
    const format = options.dateFormat ?? 'dd/mm/yyyy';
    const address = addressLines(inv.billTo.address);
    const taxType = options.taxType ?? (inv.taxRateBp > 0 ? 'Tax on Sales' : 'Tax Exempt');
    lines.forEach((line, i) => {
      rows.push([
        text(inv.billTo.name ?? inv.billTo.carrierId),
        text(inv.billTo.email),
        text(address[0]),
        text(address[1]),
        text(address[2]),
        text(address[3]),
        text(null),
        text(null),
        text(null),
        text(null),
        text(inv.number),
        text(`${yard.code} ${inv.period}`),
        num(writeDate(issued, format)),
        num(writeDate(due, format)),
        text(null),
        text(line.description),
        num(String(line.quantity)),
        num(decimalAmount(line.unitAmount, inv.currency)),
        text(null),
        text(options.accountCode ?? '200'),
        text(taxType),
        num(decimalAmount(taxes[i] ?? 0, inv.currency)),
        text(null),
        text(null),
        text(null),
        text(null),
        text(inv.currency),
        text(null),
      ]);
    });
  }
  return rows;
}

/**
 * QuickBooks Online's invoice import (the column names it maps by itself). One row per line; rows
 * with the same InvoiceNo make one invoice. ItemAmount is tax exclusive; the yard's tax rate is in
 * TaxRate (US sales tax is applied on the invoice). QuickBooks Online imports invoices only: a
 * negative total (a credit note) must be entered there as a credit memo.
 */
const QUICKBOOKS_COLUMNS = [
  'InvoiceNo',
  'Customer',
  'InvoiceDate',
  'DueDate',
  'Terms',
  'Memo',
  'Item(Product/Service)',
  'ItemDescription',
  'ItemQuantity',
  'ItemRate',
  'ItemAmount',
  'Taxable',
  'TaxRate',
];

function quickbooksRows(items: readonly ExportInvoice[], options: CsvOptions): Cell[][] {
  const rows: Cell[][] = [];
  for (const { invoice: inv, yard, adjustments } of items) {
    const { issued, due } = dates(inv);
    const format = options.dateFormat ?? 'mm/dd/yyyy';
    const terms = inv.paymentTermsDays > 0 ? `Net ${inv.paymentTermsDays}` : 'Due on receipt';
    const taxable = inv.taxRateBp > 0;
    for (const line of invoiceLines(inv, adjustments)) {
      rows.push([
        text(inv.number),
        text(inv.billTo.name ?? inv.billTo.carrierId),
        num(writeDate(issued, format)),
        num(writeDate(due, format)),
        text(terms),
        text(`${yard.code} ${inv.period} (${inv.currency})`),
        text(line.item),
        text(line.description),
        num(String(line.quantity)),
        num(decimalAmount(line.unitAmount, inv.currency)),
        num(decimalAmount(line.amount, inv.currency)),
        text(taxable ? 'Y' : 'N'),
        num(`${percentOf(inv.taxRateBp)}%`),
      ]);
    }
  }
  return rows;
}

/** The period's invoices as one CSV in the import format of `format` (UTF-8, CRLF, header row). */
export function invoicesCsv(
  format: ExportFormat,
  items: readonly ExportInvoice[],
  options: CsvOptions,
): string {
  const columns = format === 'xero' ? XERO_COLUMNS : QUICKBOOKS_COLUMNS;
  const rows = format === 'xero' ? xeroRows(items, options) : quickbooksRows(items, options);
  return stringify([columns, ...rows.map((row) => row.map(cellValue))], { record_delimiter: 'windows' });
}
