import { stringify } from 'csv-stringify/sync';
import { neutralizeFormula } from '../../../http/export-text.js';
import { type ExportLine, invoiceLines, isCreditNote, spreadTax } from './lines.js';
import { addDays, type DateFormat, decimalAmount, localDate, percentOf, writeDate } from './money-format.js';
import type { ExportFormat, ExportKind } from './schema.js';
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
 * Text is written as it is. Names that reach this file are checked where they are entered
 * (shared/http/export-text.ts), so an accounting system receives them exactly and matches its
 * contacts by them. Text that breaks that rule all the same (stored before it, sent by an older site,
 * or not a name: an address line) is neutralized with an apostrophe before each formula start; an
 * amount we formatted from an integer, such as -20.00, is never touched.
 */
function cellValue(cell: Cell): string {
  if ('number' in cell) return cell.number;
  return cell.text === null ? '' : neutralizeFormula(cell.text);
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

/** One line of a document as the imports write it: its amounts in the document's own direction. */
interface Row {
  line: ExportLine;
  /** Signed as the document books it: an invoice's charges and a credit note's credits are positive. */
  unitAmount: number;
  amount: number;
  tax: number;
}

/**
 * The lines of an invoice or a credit note, with their tax spread so that it adds up. A credit note
 * (a negative total) is booked by both systems as a positive document that reduces what the
 * customer owes: every sign is turned, so the credit is positive and a charge that offsets part of
 * it is negative; the document's total is the invoice's total made positive.
 */
function rows(inv: ExportInvoice['invoice'], adjustments: ExportInvoice['adjustments']): Row[] {
  const lines = invoiceLines(inv, adjustments);
  const taxes = spreadTax(lines, inv.tax, inv.subtotal);
  const sign = isCreditNote(inv) ? -1 : 1;
  // `0 * -1` is -0: written "0.00" all the same (decimalAmount takes the sign of a negative only).
  return lines.map((line, i) => ({
    line,
    unitAmount: sign * line.unitAmount || 0,
    amount: sign * line.amount || 0,
    tax: sign * (taxes[i] ?? 0) || 0,
  }));
}

/**
 * Xero's sales import, for invoices and for credit notes (Business > Invoices, Import; Credit notes,
 * Import). The two templates share their columns but for the number and date, and a credit note has
 * no due date; `*` marks what Xero requires. One row per line; rows with the same number make one
 * document. Amounts are tax exclusive (choose "Tax exclusive" on import); the tax is given per line
 * in TaxAmount, spread so that it adds up to the document's tax exactly. Tracking is left empty: a
 * tracking category Xero does not have would fail the import.
 */
function xeroColumns(kind: ExportKind): string[] {
  const doc =
    kind === 'invoice'
      ? ['*InvoiceNumber', 'Reference', '*InvoiceDate', '*DueDate']
      : ['*CreditNoteNumber', 'Reference', '*CreditNoteDate'];
  return [
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
    ...doc,
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
}

function xeroRows(kind: ExportKind, items: readonly ExportInvoice[], options: CsvOptions): Cell[][] {
  const out: Cell[][] = [];
  for (const { invoice: inv, yard, adjustments } of items) {
    const { issued, due } = dates(inv);
    const format = options.dateFormat ?? 'dd/mm/yyyy';
    const address = addressLines(inv.billTo.address);
    const taxType = options.taxType ?? (inv.taxRateBp > 0 ? 'Tax on Sales' : 'Tax Exempt');
    const doc =
      kind === 'invoice'
        ? [
            text(inv.exportNumber),
            text(`${yard.code} ${inv.period}`),
            num(writeDate(issued, format)),
            num(writeDate(due, format)),
          ]
        : [text(inv.exportNumber), text(`${yard.code} ${inv.period}`), num(writeDate(issued, format))];
    for (const row of rows(inv, adjustments)) {
      out.push([
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
        ...doc,
        text(null),
        text(row.line.description),
        num(String(row.line.quantity)),
        num(decimalAmount(row.unitAmount, inv.currency)),
        text(null),
        text(options.accountCode ?? '200'),
        text(taxType),
        num(decimalAmount(row.tax, inv.currency)),
        text(null),
        text(null),
        text(null),
        text(null),
        text(inv.currency),
        text(null),
      ]);
    }
  }
  return out;
}

/**
 * QuickBooks Online's imports (Settings > Import data): invoices, and credit memos (credit notes
 * outside the US), with the column names its mapping step recognises. One row per line; rows with
 * the same number make one document. ItemAmount is tax exclusive; the yard's tax rate is in TaxRate
 * (US sales tax is applied on the document). A credit memo has no due date or terms.
 */
function quickbooksColumns(kind: ExportKind): string[] {
  const doc =
    kind === 'invoice'
      ? ['InvoiceNo', 'Customer', 'InvoiceDate', 'DueDate', 'Terms']
      : ['CreditMemoNo', 'Customer', 'CreditMemoDate'];
  return [
    ...doc,
    'Memo',
    'Item(Product/Service)',
    'ItemDescription',
    'ItemQuantity',
    'ItemRate',
    'ItemAmount',
    'Taxable',
    'TaxRate',
  ];
}

function quickbooksRows(kind: ExportKind, items: readonly ExportInvoice[], options: CsvOptions): Cell[][] {
  const out: Cell[][] = [];
  for (const { invoice: inv, yard, adjustments } of items) {
    const { issued, due } = dates(inv);
    const format = options.dateFormat ?? 'mm/dd/yyyy';
    const terms = inv.paymentTermsDays > 0 ? `Net ${inv.paymentTermsDays}` : 'Due on receipt';
    const taxable = inv.taxRateBp > 0;
    const customer = text(inv.billTo.name ?? inv.billTo.carrierId);
    const doc =
      kind === 'invoice'
        ? [
            text(inv.exportNumber),
            customer,
            num(writeDate(issued, format)),
            num(writeDate(due, format)),
            text(terms),
          ]
        : [text(inv.exportNumber), customer, num(writeDate(issued, format))];
    for (const row of rows(inv, adjustments)) {
      out.push([
        ...doc,
        text(`${yard.code} ${inv.period} (${inv.currency})`),
        text(row.line.item),
        text(row.line.description),
        num(String(row.line.quantity)),
        num(decimalAmount(row.unitAmount, inv.currency)),
        num(decimalAmount(row.amount, inv.currency)),
        text(taxable ? 'Y' : 'N'),
        num(`${percentOf(inv.taxRateBp)}%`),
      ]);
    }
  }
  return out;
}

/**
 * The period's invoices, or its credit notes, as one CSV in the import format of `format` (UTF-8,
 * CRLF, header row): each accounting system imports the two through separate screens, one file each.
 */
export function invoicesCsv(
  format: ExportFormat,
  kind: ExportKind,
  items: readonly ExportInvoice[],
  options: CsvOptions,
): string {
  const mine = items.filter((item) => isCreditNote(item.invoice) === (kind === 'credit-note'));
  const columns = format === 'xero' ? xeroColumns(kind) : quickbooksColumns(kind);
  const body = format === 'xero' ? xeroRows(kind, mine, options) : quickbooksRows(kind, mine, options);
  return stringify([columns, ...body.map((row) => row.map(cellValue))], { record_delimiter: 'windows' });
}
