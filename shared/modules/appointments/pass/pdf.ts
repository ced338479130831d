// Helvetica in PDF readers is WinAnsi: the invoice PDF's rule for names outside it is the one rule.
import { loadPdfkit, winAnsi } from '../../billing/export/pdf.js';
import type { AppointmentPublicT } from '../public-view.js';
import { passFields } from './fields.js';

/** A6 (105 x 148 mm): a quarter of a letter or A4 sheet, fits a phone screen, a clipboard and a windscreen. */
const A6: [number, number] = [297.64, 419.53];
const MARGIN = 18;
const QR_SIZE = 112;
const LABEL_WIDTH = 46;
/**
 * Title, yard (two lines at most), banner, QR code and the code in letters, with the top margin:
 * 223 pt at their tallest, measured.
 */
const HEAD_HEIGHT = 240;

/**
 * The gate pass as a one-page PDF: title and yard, a CANCELLED banner when it is, the QR code of
 * the appointment code, the code in letters (for a gate without a scanner, or a scanner that
 * fails), then door, time with the yard's offset, load, carrier, trailer, truck, driver and refs.
 * A pass whose fields are longer than A6 holds (ten long refs) gets a taller page, never a second
 * one: a driver shows one page.
 */
export async function passPdf(p: AppointmentPublicT, qrPng: Buffer): Promise<Buffer> {
  const PDFDocument = await loadPdfkit();
  const doc = new PDFDocument({
    autoFirstPage: false,
    info: { Title: winAnsi(`Gate pass ${p.code}`), Subject: winAnsi(p.yard.name) },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const width = A6[0] - 2 * MARGIN;
  const fields = passFields(p)
    .filter(([label]) => label !== 'Code')
    .map(([label, value]) => [label, winAnsi(value)] as const);
  const reason = p.status === 'cancelled' && p.cancelReason ? winAnsi(`Reason: ${p.cancelReason}`) : null;

  const valueFont = () => doc.font('Helvetica').fontSize(9);
  const reasonFont = () => doc.font('Helvetica-Oblique').fontSize(8.5);
  const gap = () => doc.currentLineHeight() * 0.1;
  valueFont();
  let body = fields.reduce(
    (h, [, value]) => h + doc.heightOfString(value, { width: width - LABEL_WIDTH }) + gap(),
    0,
  );
  if (reason) body += reasonFont().heightOfString(reason, { width });
  doc.addPage({ size: [A6[0], Math.max(A6[1], Math.ceil(HEAD_HEIGHT + body + 2 * MARGIN))], margin: MARGIN });

  doc.font('Helvetica-Bold').fontSize(14).text('Gate pass', { width });
  doc.font('Helvetica').fontSize(10).text(winAnsi(p.yard.name), { width, height: 24, ellipsis: true });
  if (p.status === 'cancelled') {
    doc.moveDown(0.2).font('Helvetica-Bold').fontSize(14).fillColor('#b00020');
    doc.text('CANCELLED', { width, align: 'center' });
    doc.fillColor('black');
  }
  doc.moveDown(0.3);
  doc.image(qrPng, MARGIN + (width - QR_SIZE) / 2, doc.y, { width: QR_SIZE, height: QR_SIZE });
  doc.y += QR_SIZE + 2;
  doc.font('Courier-Bold').fontSize(20).text(winAnsi(p.code), MARGIN, doc.y, { width, align: 'center' });
  doc.moveDown(0.3);

  for (const [label, value] of fields) {
    const y = doc.y;
    doc
      .font('Helvetica-Bold')
      .fontSize(7.5)
      .fillColor('#555555')
      .text(label, MARGIN, y + 1, { width: LABEL_WIDTH });
    valueFont().fillColor('black');
    doc.text(value, MARGIN + LABEL_WIDTH, y, { width: width - LABEL_WIDTH });
    doc.y += gap();
  }
  if (reason) reasonFont().text(reason, MARGIN, doc.y, { width });
  doc.end();
  return done;
}
