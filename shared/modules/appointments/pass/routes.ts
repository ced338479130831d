import type { Request, Response } from 'express';
import { CARRIER, STAFF } from '../../../auth/principal.js';
import { IdParams } from '../../../http/common-schemas.js';
import { AppError } from '../../../http/errors.js';
import { type Access, etagOf, type RouteRegistrar } from '../../../http/routes.js';
import { z } from '../../../http/zod.js';
import { PASS_PAGE_HEADERS } from './html.js';
import { PASS_FORMATS, PASS_MEDIA_TYPES, type PassFormat, type RenderedPass } from './index.js';
import type { GatePassService } from './service.js';

const TAG = 'Appointment Controller';

/**
 * Who may fetch a pass: staff of the appointment's yard, and carrier users for their own carrier's
 * appointments (docs/api.md "Appointments"; the own-carrier check is GatePassService.visible).
 */
export const PASS_ACCESS: Access = [...STAFF, ...CARRIER];

const PassQuery = z.object({
  format: z
    .enum(PASS_FORMATS)
    .optional()
    .openapi({ description: 'html, pdf, png (the QR code) or ics; without it the Accept header chooses' }),
});

const WHAT =
  'The pass shows the QR code of the appointment code (what the gate scanner reads), the code in letters, the yard, ' +
  'door, time in the yard’s wall clock with its UTC offset, load type, carrier, trailer, truck, driver and refs, and ' +
  'CANCELLED with the reason when it is. 404 for an appointment outside the caller’s yards or, for a carrier user, of another carrier.';

const DISPOSITION: Record<PassFormat, 'inline' | 'attachment'> = {
  html: 'inline',
  pdf: 'inline',
  png: 'inline',
  // A calendar file is for importing, not for showing.
  ics: 'attachment',
};

/** The gate pass of an appointment (docs/api.md "Appointments"), as a page, a PDF, the QR code or an .ics. */
export function registerPassRoutes(r: RouteRegistrar, { gatePasses }: { gatePasses: GatePassService }): void {
  r.add({
    method: 'get',
    path: '/api/appointment/{id}/pass',
    tag: TAG,
    summary: 'The gate pass: an HTML page to show or print; PDF, QR code PNG or .ics by Accept or `format`',
    description:
      `${WHAT} Without \`format\`, \`Accept\` chooses among text/html (the default, also for */*), application/pdf, ` +
      'image/png and text/calendar; 406 `not-acceptable` when it allows none. The page has no script and carries ' +
      'the web apps’ Content-Security-Policy, its stylesheet allowed by hash.',
    access: PASS_ACCESS,
    params: IdParams,
    query: PassQuery,
    response: {
      contentType: 'text/html',
      description: 'The pass page (or the asked format: see the suffixed routes)',
      headers: { ETag: 'The appointment version the pass shows', Vary: 'Accept' },
    },
    errors: [404, 406],
    errorText: {
      406: 'Accept allows none of text/html, application/pdf, image/png, text/calendar (not-acceptable)',
    },
    handler: async ({ principal, params, query, req, res }) => {
      res.vary('Accept');
      const format = query.format ?? negotiate(req);
      await send(res, format, await gatePasses.render(principal, params.id, format));
      return undefined;
    },
  });

  const variants: { format: Exclude<PassFormat, 'html'>; summary: string; description: string }[] = [
    {
      format: 'pdf',
      summary: 'The gate pass as a one-page PDF (A6)',
      description: 'Shown inline, named `gate-pass-<code>.pdf`.',
    },
    {
      format: 'png',
      summary: 'The QR code of the appointment code (PNG)',
      description: 'The code only: no URL, no personal data. Shown inline.',
    },
    {
      format: 'ics',
      summary: 'The appointment as an iCalendar event (.ics)',
      description:
        'UID `<id>@yard-service` and SEQUENCE = the appointment version, so a calendar updates the same event; a ' +
        'cancelled appointment is METHOD:CANCEL with STATUS:CANCELLED. Times in UTC. Downloaded as `gate-pass-<code>.ics`.',
    },
  ];
  for (const v of variants) {
    r.add({
      method: 'get',
      path: `/api/appointment/{id}/pass.${v.format}`,
      tag: TAG,
      summary: v.summary,
      description: `${v.description} ${WHAT}`,
      access: PASS_ACCESS,
      params: IdParams,
      response: {
        contentType: PASS_MEDIA_TYPES[v.format],
        description: v.summary,
        headers: { ETag: 'The appointment version the pass shows' },
      },
      errors: [404],
      handler: async ({ principal, params, res }) => {
        await send(res, v.format, await gatePasses.render(principal, params.id, v.format));
        return undefined;
      },
    });
  }
}

function negotiate(req: Request): PassFormat {
  const types = PASS_FORMATS.map((f) => PASS_MEDIA_TYPES[f]);
  const chosen = req.accepts(types);
  const format = PASS_FORMATS.find((f) => PASS_MEDIA_TYPES[f] === chosen);
  if (!format) {
    throw new AppError(
      406,
      'not-acceptable',
      'Not acceptable',
      `The pass is available as ${types.join(', ')}; the Accept header allows none of them.`,
    );
  }
  return format;
}

async function send(
  res: Response,
  format: PassFormat,
  { pass, version }: { pass: RenderedPass; version: number },
): Promise<void> {
  if (format === 'html') res.set(PASS_PAGE_HEADERS);
  else {
    // No page CSP on a file: a browser's PDF viewer is a page of its own.
    res.set({ 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' });
    res.setHeader('Content-Disposition', `${DISPOSITION[format]}; filename="${pass.filename}"`);
  }
  res.setHeader('Content-Type', pass.contentType);
  // Names, plates and the code of one truck's visit: kept by no cache between.
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('ETag', etagOf(version));
  res.send(pass.body);
}
