import { createHash } from 'node:crypto';
import { CONTENT_SECURITY_POLICY, PAGE_HEADERS } from '../../../http/page-headers.js';
import type { AppointmentPublicT } from '../public-view.js';
import { passFields } from './fields.js';

/**
 * The pass as a page to show on a phone at the gate or to print. Server-rendered, no script. Its
 * one stylesheet is inline and allowed by its hash: the pages' CSP forbids inline style
 * (docs/api.md "The web apps"), and a stylesheet of its own URL would need the bearer token that
 * a page opened from a saved answer or a blob: URL does not have.
 */
export const PASS_CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#111;background:#f3f4f6}
main{max-width:26rem;margin:1rem auto;padding:1.25rem;background:#fff;border:1px solid #d1d5db;border-radius:.5rem}
h1{margin:0;font-size:1.4rem}
.yard{margin:.1rem 0 .75rem;color:#374151}
.banner{margin:.5rem 0;padding:.4rem;text-align:center;font-weight:700;font-size:1.3rem;color:#fff;background:#b00020;border-radius:.25rem}
.qr{display:block;width:14rem;height:14rem;margin:0 auto;image-rendering:pixelated}
.code{margin:.25rem 0 1rem;text-align:center;font:700 2rem/1.2 ui-monospace,Menlo,Consolas,monospace;letter-spacing:.15em}
dl{display:grid;grid-template-columns:auto 1fr;gap:.3rem .9rem;margin:0}
dt{font-weight:600;color:#4b5563}
dd{margin:0}
.nw{white-space:nowrap}
.hint{margin:1rem 0 0;font-size:.9rem;color:#4b5563}
@media print{
 @page{size:A6;margin:8mm}
 body{background:#fff}
 main{margin:0;max-width:none;padding:0;border:0}
 .banner{color:#000;background:none;border:2px solid #000}
 .hint{display:none}
}
`;

/**
 * The CSP source that allows the page's stylesheet. A web app that shows the fetched page from a
 * blob: URL lends it its own policy (a blob document inherits its creator's CSP), so such an app
 * must list this source in its pages' style-src too.
 */
export const PASS_STYLE_SOURCE = `'sha256-${createHash('sha256').update(PASS_CSS).digest('base64')}'`;

/** The pages' headers, with the pass's stylesheet allowed by its hash and nothing else added. */
export const PASS_PAGE_HEADERS: Readonly<Record<string, string>> = {
  ...PAGE_HEADERS,
  'Content-Security-Policy': CONTENT_SECURITY_POLICY.replace(
    "style-src 'self'",
    `style-src 'self' ${PASS_STYLE_SOURCE}`,
  ),
};

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
/** Every text from the record is escaped: names and refs are typed by people. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ENTITIES[ch] as string);
}

export function passHtml(p: AppointmentPublicT, qrPng: Buffer): string {
  const e = escapeHtml;
  const cancelled = p.status === 'cancelled';
  const rows = passFields(p)
    .filter(([label]) => label !== 'Code')
    // An offset stays on one line: "(UTC-" at a line's end and "06:00)" on the next misreads.
    .map(
      ([label, value]) =>
        `<dt>${e(label)}</dt><dd>${e(value).replace(/\(UTC[^)]*\)/g, '<span class="nw">$&</span>')}</dd>`,
    )
    .join('');
  const reason = cancelled && p.cancelReason ? `<dt>Reason</dt><dd>${e(p.cancelReason)}</dd>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Gate pass ${e(p.code)} - ${e(p.yard.name)}</title>
<style>${PASS_CSS}</style>
</head><body><main>
<h1>Gate pass</h1>
<p class="yard">${e(p.yard.name)}</p>
${cancelled ? '<p class="banner">Cancelled</p>\n' : ''}<img class="qr" src="data:image/png;base64,${qrPng.toString('base64')}" alt="QR code of the appointment code ${e(p.code)}">
<p class="code" aria-label="Appointment code">${e(p.code)}</p>
<dl>${rows}${reason}</dl>
<p class="hint">Show this pass at the gate: the clerk scans the code or types it in.</p>
</main></body></html>
`;
}
