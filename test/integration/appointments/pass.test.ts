import { createHash, randomUUID } from 'node:crypto';
import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import type { AppDatabase } from '../../../shared/db/database.js';
import { seed } from '../../helpers/builders.js';
import { Client, clientWithRole } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { serveLinkedEdge } from '../billing/fixture.js';
import { bookableYard, NOW } from './fixture.js';

/** The bytes of an answer, with its headers (Client reads text, which a PNG or PDF is not). */
async function fetchBytes(client: Client, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${client.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${client.token}`, ...headers },
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

async function pdfText(bytes: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    return (await parser.getText()).text.replace(/\s+/g, ' ');
  } finally {
    await parser.destroy();
  }
}

/**
 * GET /api/appointment/{id}/pass and its .pdf, .png and .ics variants (docs/api.md "Appointments"):
 * content types, Accept negotiation, the page's CSP, scope, on both databases.
 */
describe.each(TEST_DIALECTS)('gate pass routes (%s)', (dialect) => {
  let t: TestApp<AppDatabase>;
  let admin: Client;
  const clock = new ManualClock(Date.parse(NOW));
  let y: Awaited<ReturnType<typeof bookableYard>>;
  let booked: any;
  const pass = (suffix = '', id = booked.id) => `/api/appointment/${id}/pass${suffix}`;

  beforeAll(async () => {
    t = await startTestApp({ dialect, clock, env: { YARD_ROLE: 'cloud' } });
    admin = new Client(t.url, t.adminToken);
    y = await bookableYard(admin);
    const res = await admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      startAt: '2026-03-03T08:00:00-06:00',
      refs: ['PO-<1>'],
      trailerNumber: 'TR-9',
    });
    expect(res.status, res.text).toBe(201);
    booked = res.body;
  });
  afterAll(() => t.close());

  it('serves the page to a browser, with the stylesheet allowed by its hash and nothing inline besides', async () => {
    const res = await admin.get(pass(), { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('etag')).toBe('"v1"');
    expect(res.headers.get('vary')).toMatch(/accept/i);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const style = /<style>([\s\S]*?)<\/style>/.exec(res.text)?.[1] ?? '';
    expect(style).toContain('@media print');
    const hash = createHash('sha256').update(style).digest('base64');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`style-src 'self' 'sha256-${hash}'`);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.text).not.toMatch(/<script|\sstyle=|\son\w+=/i);
    expect(res.text).toContain(`<p class="code" aria-label="Appointment code">${booked.code}</p>`);
    expect(res.text).toContain('<dd>Door 2</dd>');
    expect(res.text).toContain('<dd>Tue 3 Mar 2026, 08:00 - 09:00 <span class="nw">(UTC-06:00)</span></dd>');
    // What people typed is text, never markup.
    expect(res.text).toContain('<dd>PO-&lt;1&gt;</dd>');
    expect(res.text).toMatch(/<img class="qr" src="data:image\/png;base64,[A-Za-z0-9+/=]+" alt="QR code/);
  });

  it('lets Accept or format choose the PDF, the QR code or the calendar event, and */* the page', async () => {
    const cases: [Record<string, string>, string, string][] = [
      [{ accept: 'application/pdf' }, '', 'application/pdf'],
      [{ accept: 'image/png' }, '', 'image/png'],
      [{ accept: 'text/calendar' }, '', 'text/calendar; charset=utf-8; method=PUBLISH'],
      [{ accept: '*/*' }, '', 'text/html; charset=utf-8'],
      [{}, '', 'text/html; charset=utf-8'],
      [{ accept: 'text/html' }, '?format=pdf', 'application/pdf'],
      [{}, '?format=ics', 'text/calendar; charset=utf-8; method=PUBLISH'],
    ];
    for (const [headers, query, type] of cases) {
      const res = await fetchBytes(admin, pass(query), headers);
      expect(res.status, `${JSON.stringify(headers)} ${query}`).toBe(200);
      expect(res.headers.get('content-type'), `${JSON.stringify(headers)} ${query}`).toBe(type);
    }
  });

  it('answers 406 not-acceptable when Accept allows no form of the pass, and 400 for an unknown format', async () => {
    const res = await admin.get(pass(), { accept: 'application/json' });
    expect(res.status).toBe(406);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('not-acceptable');
    const bad = await admin.get(pass('?format=docx'));
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation-failed');
  });

  it('serves pass.pdf inline: one page with the code, yard, door and local time', async () => {
    const res = await fetchBytes(admin, pass('.pdf'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="gate-pass-${booked.code}.pdf"`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('etag')).toBe('"v1"');
    const text = await pdfText(res.bytes);
    const yard = await admin.get(`/api/yard/${y.yardId}`);
    expect(text).toContain(booked.code);
    expect(text).toContain(yard.body.name);
    expect(text).toContain('Door 2');
    expect(text).toContain('Tue 3 Mar 2026, 08:00 - 09:00 (UTC-06:00)');
  });

  it('serves pass.png (the QR code) inline and pass.ics as a download', async () => {
    const png = await fetchBytes(admin, pass('.png'));
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(png.headers.get('content-disposition')).toBe(`inline; filename="gate-pass-${booked.code}.png"`);
    expect(png.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    const ics = await admin.get(pass('.ics'));
    expect(ics.status).toBe(200);
    expect(ics.headers.get('content-disposition')).toBe(
      `attachment; filename="gate-pass-${booked.code}.ics"`,
    );
    expect(ics.text).toContain(`UID:${booked.id}@yard-service`);
    expect(ics.text).toContain('DTSTART:20260303T140000Z');
    expect(ics.text).toContain('SEQUENCE:1');
  });

  it('follows the appointment: a cancellation is a CANCEL with the next SEQUENCE and a CANCELLED pass', async () => {
    const other = await admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      startAt: '2026-03-03T10:00:00-06:00',
    });
    expect(other.status, other.text).toBe(201);
    const cancelled = await admin.post(`/api/appointment/${other.body.id}/cancel`, {
      reason: 'load not ready',
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const ics = await admin.get(pass('.ics', other.body.id));
    expect(ics.headers.get('content-type')).toBe('text/calendar; charset=utf-8; method=CANCEL');
    expect(ics.text).toContain('METHOD:CANCEL');
    expect(ics.text).toContain('STATUS:CANCELLED');
    expect(ics.text).toContain(`SEQUENCE:${cancelled.body.version}`);
    expect(ics.headers.get('etag')).toBe(`"v${cancelled.body.version}"`);
    const page = await admin.get(pass('', other.body.id));
    expect(page.text).toContain('<p class="banner">Cancelled</p>');
    expect(page.text).toContain('<dd>load not ready</dd>');
  });

  it('answers 404 for an appointment of a yard outside the caller scope, and for none, on every form', async () => {
    const otherYard = await seed(admin).yard({ timeZone: 'UTC' });
    const elsewhere = await clientWithRole(admin, 'gate', { yardIds: [otherYard.id] });
    const inYard = await clientWithRole(admin, 'gate', { yardIds: [y.yardId] });
    for (const suffix of ['', '.pdf', '.png', '.ics']) {
      const refused = await elsewhere.get(pass(suffix));
      expect(refused.status, suffix).toBe(404);
      expect(refused.body.code, suffix).toBe('not-found');
      expect((await admin.get(pass(suffix, randomUUID()))).status, suffix).toBe(404);
      expect((await inYard.get(pass(suffix))).status, suffix).toBe(200);
    }
  });

  it('wants a signed-in staff member', async () => {
    const anonymous = admin.as(undefined);
    expect((await anonymous.get(pass())).status).toBe(401);
    expect((await anonymous.get(pass('.png'))).status).toBe(401);
  });

  it('is in the OpenAPI document with its forms and errors', async () => {
    const doc = (await admin.get('/v3/api-docs')).body;
    const page = doc.paths['/api/appointment/{id}/pass'].get;
    expect(Object.keys(page.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404', '406']));
    expect(Object.keys(page.responses['200'].content)).toEqual(['text/html']);
    expect(Object.keys(doc.paths['/api/appointment/{id}/pass.pdf'].get.responses['200'].content)).toEqual([
      'application/pdf',
    ]);
    expect(Object.keys(doc.paths['/api/appointment/{id}/pass.png'].get.responses['200'].content)).toEqual([
      'image/png',
    ]);
    expect(Object.keys(doc.paths['/api/appointment/{id}/pass.ics'].get.responses['200'].content)).toEqual([
      'text/calendar',
    ]);
  });
});

/** The gate house works from its edge, also while the link to the cloud is down. */
describe('gate pass at a linked edge', () => {
  let standalone: TestApp;
  let edge: Awaited<ReturnType<typeof serveLinkedEdge>>;
  let booked: any;

  beforeAll(async () => {
    standalone = await startTestApp({ clock: new ManualClock(Date.now()) });
    const admin = new Client(standalone.url, standalone.adminToken);
    const y = await bookableYard(admin);
    const res = await admin.post('/api/appointment', {
      yardId: y.yardId,
      loadTypeId: y.loadTypeId,
      carrierId: y.carrierId,
      startAt: new Date(Date.now() + 86_400_000).toISOString(),
      override: { reason: 'test booking at any hour' },
    });
    expect(res.status, res.text).toBe(201);
    booked = res.body;
    edge = await serveLinkedEdge(standalone);
  });
  afterAll(async () => {
    await edge?.close();
    await standalone?.close();
  });

  it('serves every form of the pass of an appointment it holds', async () => {
    const page = await edge.admin.get(`/api/appointment/${booked.id}/pass`);
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain(booked.code);
    for (const [suffix, type] of [
      ['.pdf', 'application/pdf'],
      ['.png', 'image/png'],
      ['.ics', 'text/calendar; charset=utf-8; method=PUBLISH'],
    ]) {
      const res = await fetchBytes(edge.admin, `/api/appointment/${booked.id}/pass${suffix}`);
      expect(res.status, suffix).toBe(200);
      expect(res.headers.get('content-type'), suffix).toBe(type);
    }
  });
});
