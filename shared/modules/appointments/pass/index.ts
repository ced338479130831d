/**
 * The gate pass (docs/domain.md "At the gate", docs/api.md "Appointments"): one appointment as an
 * HTML page, a PDF, a QR code PNG and an .ics calendar event, all rendered from AppointmentPublic
 * (public-view.ts). The pass routes and the email attachments use this one interface.
 */
import type { Clock } from '../../../clock.js';
import type { AppointmentPublicT } from '../public-view.js';
import { passText } from './fields.js';
import { passHtml } from './html.js';
import { passIcs } from './ics.js';
import { passPdf } from './pdf.js';
import { passQrPng } from './qr.js';

export const PASS_FORMATS = ['html', 'pdf', 'png', 'ics'] as const;
export type PassFormat = (typeof PASS_FORMATS)[number];

/** The media type of each format (without parameters: what `Accept` is matched against). */
export const PASS_MEDIA_TYPES: Record<PassFormat, string> = {
  html: 'text/html',
  pdf: 'application/pdf',
  png: 'image/png',
  ics: 'text/calendar',
};

export interface RenderedPass {
  body: Buffer | string;
  /** With its parameters (charset, the iCalendar method). */
  contentType: string;
  /** "gate-pass-K7M2Q9TX.pdf": for Content-Disposition and mail attachments. */
  filename: string;
}

export interface GatePassRenderer {
  render(p: AppointmentPublicT, format: PassFormat): Promise<RenderedPass>;
}

export class GatePass implements GatePassRenderer {
  constructor(private readonly deps: { clock: Clock }) {}

  async render(p: AppointmentPublicT, format: PassFormat): Promise<RenderedPass> {
    // Codes are letters and digits (codes.ts); anything else is kept out of a file name.
    const name = `gate-pass-${p.code.replace(/[^A-Za-z0-9]/g, '')}`;
    switch (format) {
      case 'png':
        return { body: await passQrPng(p.code), contentType: 'image/png', filename: `${name}.png` };
      case 'pdf':
        return {
          body: await passPdf(p, await passQrPng(p.code)),
          contentType: 'application/pdf',
          filename: `${name}.pdf`,
        };
      case 'html':
        return {
          body: passHtml(p, await passQrPng(p.code)),
          contentType: 'text/html; charset=utf-8',
          filename: `${name}.html`,
        };
      case 'ics': {
        const method = p.status === 'cancelled' ? 'CANCEL' : 'PUBLISH';
        return {
          body: await passIcs(p, passText(p), this.deps.clock.now()),
          contentType: `text/calendar; charset=utf-8; method=${method}`,
          filename: `${name}.ics`,
        };
      }
    }
  }
}
