import { PDFParse } from 'pdf-parse';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { GatePass } from '../../../shared/modules/appointments/pass/index.js';
import type { AppointmentPublicT } from '../../../shared/modules/appointments/public-view.js';
import { passOf } from './pass-fixture.js';

async function pdfOf(p: AppointmentPublicT) {
  const out = await new GatePass({ clock: new ManualClock(0) }).render(p, 'pdf');
  const bytes = new Uint8Array(out.body as Buffer);
  const parser = new PDFParse({ data: bytes.slice() });
  try {
    const text = await parser.getText();
    const images = await parser.getImage();
    // Lines wrap where the page ends them: compare words, not line breaks.
    return {
      out,
      text: text.text.replace(/\s+/g, ' '),
      pages: text.total,
      images: images.pages.flatMap((page) => page.images),
    };
  } finally {
    await parser.destroy();
  }
}

/** The PDF pass (pass/pdf.ts): what the driver prints or shows, read back as a reader extracts it. */
describe('gate pass PDF', () => {
  it('has the code in letters, yard, door and the yard-local time with offsets on a DST day, on one page', async () => {
    const { out, text, pages, images } = await pdfOf(passOf());
    expect(out.contentType).toBe('application/pdf');
    expect(out.filename).toBe('gate-pass-K7M2Q9TX.pdf');
    expect(pages).toBe(1);
    expect(text).toContain('K7M2Q9TX');
    // Outside WinAnsi "Ł" loses its stroke (billing's winAnsi), "ó" and "ź" are kept or plain.
    expect(text).toMatch(/L[oó]d[zź] North <DC>/);
    expect(text).toContain('Door 4');
    expect(text).toContain('Sun 8 Mar 2026, 01:30 (UTC-06:00) - 03:30 (UTC-05:00)');
    expect(text).toContain('Acme & Sons Freight');
    expect(text).toContain('PO-1, BOL-7');
    expect(text).toContain('TR-9');
    expect(text).not.toContain('CANCELLED');
    expect(images).toHaveLength(1);
  });

  it('stays on one page with everything at its longest (10 refs of 40, long names, a reason of 500)', async () => {
    const long = (n: number, c: string) => c.repeat(n);
    const { pages, text } = await pdfOf(
      passOf({
        yard: { id: 'y', name: long(80, 'Y'), timeZone: 'America/Chicago' },
        doorName: long(40, 'D'),
        loadTypeName: long(80, 'L'),
        carrier: { id: 'c', name: long(120, 'C') },
        refs: Array.from({ length: 10 }, (_, i) => `${i}${long(39, 'R')}`),
        trailerNumber: long(20, 'T'),
        truckPlate: long(20, 'P'),
        driverName: long(120, 'N'),
        status: 'cancelled',
        cancelReason: 'why '.repeat(125),
      }),
    );
    expect(pages).toBe(1);
    expect(text).toContain('K7M2Q9TX');
  });

  it('says CANCELLED with the reason when the appointment is', async () => {
    const { text, pages } = await pdfOf(
      passOf({
        status: 'cancelled',
        cancelledAt: '2026-03-05T09:00:00-06:00',
        cancelReason: 'load not ready',
      }),
    );
    expect(pages).toBe(1);
    expect(text).toContain('CANCELLED');
    expect(text).toContain('Reason: load not ready');
  });
});
