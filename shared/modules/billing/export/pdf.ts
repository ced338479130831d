import { lazyModule } from '../../../lazy-module.js';

/** pdfkit, loaded at the first PDF (shared/lazy-module.ts); the gate pass uses it too. */
export const loadPdfkit = lazyModule(async () => (await import('pdfkit')).default);

import { invoiceLines, isCreditNote } from './lines.js';
import { addDays, formatMoney, localDate, localDateTime, percentOf } from './money-format.js';
import type { ExportInvoice } from './service.js';

/**
 * The built-in Helvetica of PDF readers encodes text as WinAnsi (Windows-1252): a character outside
 * it would print as garbage. Accented letters lose their accent (NFKD), a few common signs get an
 * equivalent, anything else becomes "?".
 */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
/** Letters that NFKD does not take apart but that have an obvious Latin equivalent. */
const LATIN: Record<string, string> = {
  Ł: 'L',
  ł: 'l',
  Đ: 'D',
  đ: 'd',
  Ħ: 'H',
  ħ: 'h',
  ı: 'i',
  '\u2212': '-',
};
export function winAnsi(value: string): string {
  let out = '';
  for (const ch of value.normalize('NFC')) {
    const code = ch.codePointAt(0) ?? 0;
    if ((code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(ch)) {
      out += ch;
      continue;
    }
    if (ch === '\n') {
      out += ch;
      continue;
    }
    const base = LATIN[ch] ?? ch.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
    out += /^[\x20-\x7e]+$/.test(base) ? base : '?';
  }
  return out;
}

export interface PdfOptions {
  locale: string;
}

const MARGIN = 50;

/**
 * The invoice as a PDF document (A4): header with issuer and bill-to, number, status, period and
 * the yard's time zone, dates, lines, subtotal, tax, total; then the per-day overage table and the
 * per-visit annex on following pages; page numbers at the foot. Returned unended: pipe it, then end().
 */
export async function invoicePdf({ invoice: inv, yard, adjustments }: ExportInvoice, options: PdfOptions) {
  const PDFDocument = await loadPdfkit();
  const doc = new PDFDocument({ size: 'A4', margin: MARGIN, bufferPages: true, info: { Title: inv.number } });
  const money = (minor: number) => winAnsi(formatMoney(minor, inv.currency, options.locale));
  const t = (s: string) => winAnsi(s);
  const width = doc.page.width - 2 * MARGIN;
  const credit = isCreditNote(inv);
  const issued = inv.issuedAt ? localDate(Date.parse(inv.issuedAt), inv.timeZone) : null;

  doc
    .font('Helvetica-Bold')
    .fontSize(20)
    .text(credit ? 'CREDIT NOTE' : 'INVOICE', { align: 'right' });
  doc.font('Helvetica').fontSize(10);
  doc.text(t(`Number: ${inv.number}`), { align: 'right' });
  // The number the accounting system holds, when the full one is too long for it (number.ts).
  if (inv.exportNumber !== inv.number)
    doc.text(t(`Accounting number: ${inv.exportNumber}`), { align: 'right' });
  doc.text(
    t(`Status: ${inv.status}${inv.status === 'void' && inv.voidReason ? ` (${inv.voidReason})` : ''}`),
    {
      align: 'right',
    },
  );
  doc.text(t(`Period: ${inv.period} (times in ${inv.timeZone})`), { align: 'right' });
  doc.text(`Issue date: ${issued ?? 'not issued (draft)'}`, { align: 'right' });
  // A credit note is owed to the bill-to party, not by it: nothing falls due.
  if (!credit) {
    doc.text(
      issued
        ? `Due date: ${addDays(issued, inv.paymentTermsDays)} (${inv.paymentTermsDays} days)`
        : `Payment terms: ${inv.paymentTermsDays} days from issue`,
      { align: 'right' },
    );
  }
  doc.moveDown();

  const top = doc.y;
  const half = width / 2 - 10;
  party(
    doc,
    'From',
    [inv.issuer.name ?? yard.name, inv.issuer.address, taxLine(inv.issuer.taxId), `Yard ${yard.code}`],
    MARGIN,
    top,
    half,
  );
  const leftEnd = doc.y;
  party(
    doc,
    'Bill to',
    [
      inv.billTo.name,
      inv.billTo.address,
      inv.billTo.email,
      taxLine(inv.billTo.taxId),
      inv.billTo.scac ? `SCAC ${inv.billTo.scac}` : null,
    ],
    MARGIN + width / 2 + 10,
    top,
    half,
  );
  doc.y = Math.max(leftEnd, doc.y) + 20;

  // Lines
  const cols = [MARGIN, MARGIN + 260, MARGIN + 320, MARGIN + 410];
  const colW = [255, 55, 85, width - 410];
  const row = (cells: string[], bold = false) => {
    if (doc.y > doc.page.height - MARGIN - 60) doc.addPage();
    const y = doc.y;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica');
    let bottom = y;
    cells.forEach((c, i) => {
      doc.text(t(c), cols[i]!, y, { width: colW[i]!, align: i === 0 ? 'left' : 'right' });
      bottom = Math.max(bottom, doc.y);
    });
    doc.x = MARGIN;
    doc.y = bottom + 4;
  };
  row(['Description', 'Quantity', 'Unit price', 'Amount'], true);
  for (const line of invoiceLines(inv, adjustments)) {
    row([line.description, String(line.quantity), money(line.unitAmount), money(line.amount)]);
  }
  doc.moveDown();
  row(['Subtotal', '', '', money(inv.subtotal)]);
  row([`Tax (${percentOf(inv.taxRateBp)} %)`, '', '', money(inv.tax)]);
  row([`Total (${inv.currency})`, '', '', money(inv.total)], true);
  if (credit) {
    doc
      .moveDown()
      .font('Helvetica')
      .text('This credit note reduces the amount owed by the bill-to party.', MARGIN);
  }

  overagePage(doc, inv, money);
  annexPages(doc, inv);
  stampPages(doc, inv);
  return doc;
}

function taxLine(taxId: string | null): string | null {
  return taxId ? `Tax ID ${taxId}` : null;
}

function party(
  doc: PDFKit.PDFDocument,
  title: string,
  lines: Array<string | null>,
  x: number,
  y: number,
  w: number,
) {
  doc.font('Helvetica-Bold').text(title, x, y, { width: w });
  doc.font('Helvetica');
  for (const line of lines) if (line) doc.text(winAnsi(line), x, doc.y, { width: w });
}

/** A simple table that repeats its header on each new page; `idColumns` are set small enough for a UUID. */
function table(
  doc: PDFKit.PDFDocument,
  headers: string[],
  widths: number[],
  rows: string[][],
  idColumns: readonly number[] = [],
) {
  const draw = (cells: string[], bold: boolean) => {
    if (doc.y > doc.page.height - MARGIN - 40) {
      doc.addPage();
      draw(headers, true);
    }
    const y = doc.y;
    let x = MARGIN;
    let bottom = y;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica');
    cells.forEach((c, i) => {
      doc.fontSize(!bold && idColumns.includes(i) ? 6.5 : 8);
      doc.text(winAnsi(c), x, y, { width: widths[i]! - 4 });
      bottom = Math.max(bottom, doc.y);
      x += widths[i]!;
    });
    doc.x = MARGIN;
    doc.y = bottom + 2;
  };
  draw(headers, true);
  for (const r of rows) draw(r, false);
  doc.fontSize(10);
}

function overagePage(doc: PDFKit.PDFDocument, inv: ExportInvoice['invoice'], money: (n: number) => string) {
  doc.addPage();
  doc
    .font('Helvetica-Bold')
    .fontSize(14)
    .text(winAnsi(`Per-day overage, ${inv.period} (${inv.timeZone})`), MARGIN);
  doc
    .font('Helvetica')
    .fontSize(9)
    .text(`Overage daily rate ${money(inv.rates.overageDailyRate)} per unit-day above booked spaces.`);
  doc.moveDown(0.5);
  table(
    doc,
    ['Date', 'Peak', 'Booked spaces', 'Overage units', 'Amount'],
    [100, 70, 100, 100, 125],
    inv.days.map((d) => [d.date, String(d.peak), String(d.bookedSpaces), String(d.overage), money(d.amount)]),
  );
}

function annexPages(doc: PDFKit.PDFDocument, inv: ExportInvoice['invoice']) {
  doc.addPage();
  doc
    .font('Helvetica-Bold')
    .fontSize(14)
    .text(winAnsi(`Annex: visits, ${inv.period} (times in ${inv.timeZone})`), MARGIN);
  doc.moveDown(0.5);
  const when = (iso: string | null) => (iso ? localDateTime(Date.parse(iso), inv.timeZone) : 'still in yard');
  table(
    doc,
    ['Trailer', 'In', 'Out', 'Days', 'Movements', 'Photos'],
    [52, 70, 70, 25, 139, 139],
    inv.annex.map((v) => [
      v.trailerNumber ?? v.trailerId,
      when(v.inAt),
      when(v.outAt),
      String(v.daysPresent),
      [v.inMovementId, v.outMovementId].filter(Boolean).join('\n'),
      v.attachmentIds.join('\n') || '-',
    ]),
    [4, 5],
  );
  if (inv.annex.length === 0) doc.font('Helvetica').fontSize(10).text('No visits in the period.', MARGIN);
}

/** Page numbers on every page, and the DRAFT / VOID watermark across each. */
function stampPages(doc: PDFKit.PDFDocument, inv: ExportInvoice['invoice']) {
  const range = doc.bufferedPageRange();
  const mark = inv.status === 'draft' ? 'DRAFT' : inv.status === 'void' ? 'VOID' : null;
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const { width, height } = doc.page;
    // The foot is below the bottom margin: lift the margin while writing so no page is added.
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.font('Helvetica').fontSize(8).fillColor('black');
    doc.text(winAnsi(`${inv.number} - page ${i - range.start + 1} of ${range.count}`), MARGIN, height - 35, {
      width: width - 2 * MARGIN,
      align: 'center',
      lineBreak: false,
    });
    if (mark) {
      doc.save();
      doc.rotate(-35, { origin: [width / 2, height / 2] });
      doc.font('Helvetica-Bold').fontSize(110).fillColor('#c0392b').fillOpacity(0.18);
      doc.text(mark, 0, height / 2 - 55, { width, align: 'center', lineBreak: false });
      doc.restore();
      if (inv.status === 'void' && inv.voidReason) {
        doc.font('Helvetica').fontSize(9).fillColor('#c0392b').fillOpacity(1);
        doc.text(winAnsi(`VOID: ${inv.voidReason}`), MARGIN, 20, {
          width: width - 2 * MARGIN,
          align: 'center',
          lineBreak: false,
        });
        doc.fillColor('black');
      }
    }
    doc.page.margins.bottom = bottom;
  }
}
