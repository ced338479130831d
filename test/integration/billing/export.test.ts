import { parse } from 'csv-parse/sync';
import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { neutralizeFormula } from '../../../shared/http/export-text.js';
import { newId } from '../../../shared/ids.js';
import { spreadTax } from '../../../shared/modules/billing/export/lines.js';
import { decimalAmount, formatMoney } from '../../../shared/modules/billing/export/money-format.js';
import { winAnsi } from '../../../shared/modules/billing/export/pdf.js';
import { seedRows } from '../../helpers/builders.js';
import { type Client, clientWithRole, query } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import {
  type BillingWorld,
  billingRows,
  checkIn,
  checkOut,
  closeBillingWorld,
  seedFebruary,
  serveLinkedEdge,
  startBillingWorld,
} from './fixture.js';

/**
 * The invoice exports over HTTP (docs/domain.md "Billing", exports) against February 2026 of the
 * fixture's UTC yard (rates: space 100.00, overage 15.00/unit-day, move 25.00, gate 5.00, tax 8.25 %).
 * Worked out by hand (invoice.test.ts has Prairie's and Lone Hauler's figures):
 * - Prairie with a credit of -20.00: lines space 100.00, overage 6 x 15.00, moves 2 x 25.00, gate
 *   2 x 5.00, minimum top-up 50.00, adjustment -20.00: subtotal 280.00, tax 23.10, total 303.10.
 *   Issued, voided, generated again as B1-202602-PRFL-2 and issued: only -2 is exported.
 * - Lone Hauler: subtotal 35.00, tax 2.89, total 37.89; left a draft (not exported).
 * - The formula-named carrier "=HYPERLINK(...)": X1 in 20 Feb 08:00, out 18:00: overage 1 x 15.00,
 *   gate 1 x 5.00 = 20.00; a credit of -50.00: subtotal -30.00, tax -(2.475 -> 2.48) = -2.48,
 *   total -32.48: a credit note. Issued.
 * Issued on 5 Mar 2026 (UTC), 30 days' terms: due 4 Apr 2026.
 */
describe.each(TEST_DIALECTS)('billing exports (%s)', (dialect) => {
  const clock = new ManualClock(Date.parse('2026-01-20T12:00:00Z'));
  const FORMULA_NAME = '=HYPERLINK("http://evil.example","Pay here")';
  let w: BillingWorld;
  let admin: Client;
  let formulaCarrier: string;
  const inv: Record<
    'prairieVoid' | 'prairie' | 'lone' | 'credit',
    { id: string; number: string; total: number }
  > = {} as never;

  async function generate(carrierId: string) {
    const res = await admin.post('/api/billing/invoice', { yardId: w.yardId, carrierId, period: '2026-02' });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; number: string; total: number };
  }
  async function issue(id: string) {
    const res = await admin.post(`/api/billing/invoice/${id}/issue`);
    expect(res.status, res.text).toBe(200);
  }
  async function adjust(carrierId: string, amount: number, description: string) {
    const res = await admin.post('/api/billing/invoice-adjustment', {
      yardId: w.yardId,
      carrierId,
      period: '2026-02',
      amount,
      description,
    });
    expect(res.status, res.text).toBe(201);
  }

  beforeAll(async () => {
    w = await startBillingWorld(clock, { dialect });
    admin = w.admin;
    await seedFebruary(w);
    formulaCarrier = await seedRows(w.t).carrier(FORMULA_NAME);
    const x1 = await checkIn(w, '2026-02-20T08:00:00.000Z', 'X1', formulaCarrier);
    await checkOut(w, '2026-02-20T18:00:00.000Z', x1.trailerId);
    clock.set('2026-03-05T12:00:00Z');
    await adjust(w.prairie, -2_000, 'Gate closed two hours');
    // Stored before names and descriptions were checked where they are entered: the API refuses
    // it now (export-names.test.ts), so it is written to its table as it was then.
    await w.t.core.kysely
      .insertInto('invoiceAdjustment')
      .values({
        id: newId(),
        yardId: w.yardId,
        carrierId: formulaCarrier,
        period: '2026-02',
        amount: -5_000,
        description: '-Goodwill credit',
        createdBy: null,
        createdAt: clock.now(),
        updatedAt: clock.now(),
      })
      .execute();
    inv.prairieVoid = await generate(w.prairie);
    await issue(inv.prairieVoid.id);
    const voided = await admin.post(`/api/billing/invoice/${inv.prairieVoid.id}/void`, {
      reason: 'Wrong PO number',
    });
    expect(voided.status, voided.text).toBe(200);
    inv.prairie = await generate(w.prairie);
    await issue(inv.prairie.id);
    inv.lone = await generate(w.noScac);
    inv.credit = await generate(formulaCarrier);
    await issue(inv.credit.id);
  });
  afterAll(() => closeBillingWorld(w));

  async function pdfText(path: string, client = admin) {
    const res = await fetch(`${client.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${client.token}` },
    });
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (res.status !== 200) return { res, bytes, text: '', pages: 0 };
    // pdf.js takes the buffer over (detaches it): give it a copy.
    const parser = new PDFParse({ data: bytes.slice() });
    try {
      const result = await parser.getText();
      return { res, bytes, text: result.text, pages: result.total };
    } finally {
      await parser.destroy();
    }
  }

  /** "303.10" -> 30310 minor units, from the text (never through a float). */
  function minor(decimal: string): number {
    expect(decimal, `${decimal} is a plain decimal amount`).toMatch(/^-?\d+\.\d{2}$/);
    return Number(decimal.replace('.', ''));
  }

  describe('GET /api/billing/invoice/{id}/pdf', () => {
    it('streams the issued invoice as a PDF with the number, lines, total as formatted, and the annex pages', async () => {
      expect(inv.prairie).toMatchObject({ number: 'B1-202602-PRFL-2', total: 30_310 });
      const { res, bytes, text, pages } = await pdfText(`/api/billing/invoice/${inv.prairie.id}/pdf`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="B1-202602-PRFL-2.pdf"');
      expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe('%PDF-');
      for (const expected of [
        'INVOICE',
        'B1-202602-PRFL-2',
        'Status: issued',
        'Period: 2026-02 (times in UTC)',
        'Issue date: 2026-03-05',
        'Due date: 2026-04-04 (30 days)',
        'B1 Yard Services',
        'Prairie Freight AP',
        '9 Ledger Ave',
        'Gate closed two hours',
        '$280.00',
        'Tax (8.25 %)',
        '$23.10',
        '$303.10',
        'Per-day overage, 2026-02',
        'Annex: visits, 2026-02',
        '2026-01-30 10:00', // T1's check-in, in yard time
      ]) {
        expect(text).toContain(expected);
      }
      expect(text).not.toContain('DRAFT');
      expect(text).not.toContain('CREDIT NOTE');
      expect(pages).toBeGreaterThanOrEqual(3);
      expect(text).toContain(`B1-202602-PRFL-2 - page 1 of ${pages}`);
      expect(text).toContain(`page ${pages} of ${pages}`);
    });

    it('money follows the locale asked for', async () => {
      const { res, text } = await pdfText(`/api/billing/invoice/${inv.prairie.id}/pdf?locale=de-DE`);
      expect(res.status).toBe(200);
      expect(text).toMatch(/303,10\s\$/);
    });

    it('a draft is watermarked DRAFT and has no issue date; a void one VOID with its reason', async () => {
      const draft = await pdfText(`/api/billing/invoice/${inv.lone.id}/pdf`);
      expect(draft.res.status).toBe(200);
      expect(draft.text).toContain('DRAFT');
      expect(draft.text).toContain('Issue date: not issued (draft)');
      expect(draft.text).toContain('$37.89');
      const voided = await pdfText(`/api/billing/invoice/${inv.prairieVoid.id}/pdf`);
      expect(voided.res.status).toBe(200);
      expect(voided.text).toContain('VOID: Wrong PO number');
      expect(voided.text).toContain('Status: void (Wrong PO number)');
      expect(voided.res.headers.get('content-disposition')).toBe('attachment; filename="B1-202602-PRFL.pdf"');
    });

    it('a negative total is a credit note', async () => {
      expect(inv.credit.total).toBe(-3_248);
      const { text } = await pdfText(`/api/billing/invoice/${inv.credit.id}/pdf`);
      expect(text).toContain('CREDIT NOTE');
      // Nothing falls due on a credit note: no due date, no payment terms.
      expect(text).toContain('Issue date: 2026-03-05');
      expect(text).not.toContain('Due date');
      expect(text).not.toContain('Payment terms');
      expect(text).toContain('-$32.48');
      expect(text).toContain('-$50.00');
      expect(text).toContain('=HYPERLINK'); // the bill-to name as it is: a PDF runs no formulas
    });

    it('refuses an unknown invoice (404), a bad locale (400), another yard’s invoice (404)', async () => {
      const before = await billingRows(w);
      const unknown = await admin.get('/api/billing/invoice/01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f/pdf');
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get('content-type')).toContain('application/problem+json');
      expect(unknown.body.code).toBe('not-found');
      const badLocale = await admin.get(`/api/billing/invoice/${inv.prairie.id}/pdf?locale=%3Cscript%3E`);
      expect(badLocale.status).toBe(400);
      expect(badLocale.body.code).toBe('validation-failed');
      const scoped = await clientWithRole(admin, 'billing', { yardIds: [] });
      expect((await scoped.get(`/api/billing/invoice/${inv.prairie.id}/pdf`)).status).toBe(404);
      const viewer = await clientWithRole(admin, 'viewer');
      expect((await viewer.get(`/api/billing/invoice/${inv.prairie.id}/pdf`)).status).toBe(403);
      expect(await billingRows(w)).toEqual(before);
    });
  });

  const csvPath = (format: string, extra = '') =>
    `/api/billing/invoice/export?period=2026-02&format=${format}${extra}`;

  describe('GET /api/billing/invoice/export', () => {
    it('Xero: the issued invoices, one row per line, adding up to each invoice’s total', async () => {
      const res = await admin.get(csvPath('xero'));
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="invoices-2026-02-xero.csv"');
      const records = parse(res.text, { columns: true }) as Array<Record<string, string>>;
      const numbers = [...new Set(records.map((r) => r['*InvoiceNumber']))];
      // Issued invoices only: not the void B1-202602-PRFL, not Lone Hauler's draft, not the credit
      // note (its own file: export-accounting.test.ts).
      expect(numbers).toEqual(['B1-202602-PRFL-2']);
      const credits = parse((await admin.get(csvPath('xero', '&kind=credit-note'))).text, { columns: true });
      const creditNotes = credits as Array<Record<string, string>>;
      for (const { number, total } of [inv.prairie, { ...inv.credit, total: -inv.credit.total }]) {
        const lines = [...records, ...creditNotes].filter(
          (r) => (r['*InvoiceNumber'] ?? r['*CreditNoteNumber']) === number,
        );
        const sum = lines.reduce(
          (s, r) => s + Number(r['*Quantity']) * minor(r['*UnitAmount']!) + minor(r.TaxAmount!),
          0,
        );
        expect(sum, number).toBe(total);
        for (const r of lines) {
          expect(r).toMatchObject({
            ...(number === inv.credit.number
              ? { '*CreditNoteDate': '05/03/2026' }
              : { '*InvoiceDate': '05/03/2026', '*DueDate': '04/04/2026' }),
            '*AccountCode': '200',
            '*TaxType': 'Tax on Sales',
            Currency: 'USD',
          });
        }
      }
      const prairie = records.filter((r) => r['*InvoiceNumber'] === 'B1-202602-PRFL-2');
      expect(prairie.map((r) => [r['*Description'], r['*Quantity'], r['*UnitAmount'], r.TaxAmount])).toEqual([
        ['Booked spaces, 2026-02', '1', '100.00', '8.25'],
        ['Overage unit-days above booked spaces, 2026-02', '6', '15.00', '7.43'],
        ['Completed yard moves, 2026-02', '2', '25.00', '4.13'],
        ['Gate check-ins, 2026-02', '2', '5.00', '0.82'],
        ['Top-up to the monthly minimum, 2026-02', '1', '50.00', '4.12'],
        ['Gate closed two hours', '1', '-20.00', '-1.65'],
      ]);
      expect(prairie[0]).toMatchObject({
        '*ContactName': 'Prairie Freight AP',
        EmailAddress: 'ap@prairie.example',
        POAddressLine1: '9 Ledger Ave',
        Reference: 'B1 2026-02',
      });
    });

    it('escapes formula-like text stored before the entry check, but keeps negative amounts numbers', async () => {
      const res = await admin.get(csvPath('xero', '&kind=credit-note'));
      const records = parse(res.text, { columns: true }) as Array<Record<string, string>>;
      const credit = records.filter((r) => r['*CreditNoteNumber'] === inv.credit.number);
      expect(credit.length).toBeGreaterThan(0);
      for (const r of credit) expect(r['*ContactName']).toBe(`'${FORMULA_NAME}`);
      const adjustment = credit.find((r) => r['*Description'] === "'-Goodwill credit");
      expect(adjustment, JSON.stringify(credit)).toBeDefined();
      // In the credit note's direction: the credit positive, the charges that offset it negative.
      expect(adjustment!['*UnitAmount']).toBe('50.00');
      expect(adjustment!.TaxAmount).toMatch(/^\d+\.\d\d$/);
      expect(credit.find((r) => r['*Description']?.startsWith('Gate check-ins'))!['*UnitAmount']).toBe(
        '-5.00',
      );
      // No cell of the file starts a formula except as escaped text.
      for (const r of records) {
        for (const [column, value] of Object.entries(r)) {
          if (/^[=+@\t\r]/.test(value)) throw new Error(`${column} = ${value} is not escaped`);
          if (value.startsWith('-')) expect(value, column).toMatch(/^-\d+(\.\d+)?$/);
        }
      }
    });

    it('QuickBooks Online: its columns, US dates and terms, item amounts adding up to the subtotal, tax by rate', async () => {
      const res = await admin.get(csvPath('quickbooks', `&yardId=${w.yardId}`));
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('content-disposition')).toBe(
        'attachment; filename="invoices-2026-02-quickbooks.csv"',
      );
      const records = parse(res.text, { columns: true }) as Array<Record<string, string>>;
      expect(Object.keys(records[0]!)).toEqual([
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
      ]);
      const memos = parse((await admin.get(csvPath('quickbooks', '&kind=credit-note'))).text, {
        columns: true,
      }) as Array<Record<string, string>>;
      for (const { number, total } of [inv.prairie, { ...inv.credit, total: -inv.credit.total }]) {
        const lines = [...records, ...memos].filter((r) => (r.InvoiceNo ?? r.CreditMemoNo) === number);
        expect(lines.length).toBeGreaterThan(0);
        for (const r of lines) {
          expect(Number(r.ItemQuantity) * minor(r.ItemRate!)).toBe(minor(r.ItemAmount!));
          expect(r).toMatchObject({
            ...(number === inv.credit.number
              ? { CreditMemoDate: '03/05/2026' }
              : { InvoiceDate: '03/05/2026', DueDate: '04/04/2026', Terms: 'Net 30' }),
            Taxable: 'Y',
            TaxRate: '8.25%',
          });
        }
        const subtotal = lines.reduce((s, r) => s + minor(r.ItemAmount!), 0);
        // The tax QuickBooks applies at 8.25 %, rounded half up on the magnitude as the invoice does.
        const tax = Math.sign(subtotal) * Math.floor((Math.abs(subtotal) * 825 + 5_000) / 10_000);
        expect(subtotal + tax, number).toBe(total);
      }
      expect(records.filter((r) => r.InvoiceNo === inv.credit.number)).toEqual([]);
      const credit = memos.filter((r) => r.CreditMemoNo === inv.credit.number);
      expect(credit.map((r) => [r.Customer, r['Item(Product/Service)'], r.ItemAmount])).toEqual([
        [`'${FORMULA_NAME}`, 'Overage', '-15.00'],
        [`'${FORMULA_NAME}`, 'Gate check-ins', '-5.00'],
        [`'${FORMULA_NAME}`, 'Adjustment', '50.00'],
      ]);
    });

    it('dates in the order asked for', async () => {
      const res = await admin.get(
        csvPath('xero', '&dateFormat=yyyy-mm-dd&accountCode=4000&taxType=Sales%20Tax'),
      );
      const records = parse(res.text, { columns: true }) as Array<Record<string, string>>;
      expect(records[0]).toMatchObject({
        '*InvoiceDate': '2026-03-05',
        '*DueDate': '2026-04-04',
        '*AccountCode': '4000',
        '*TaxType': 'Sales Tax',
      });
    });

    it('a period without issued invoices, or a yard out of scope without yardId, is the header alone', async () => {
      const res = await admin.get('/api/billing/invoice/export?period=2026-01&format=quickbooks');
      expect(res.status).toBe(200);
      expect(res.text.trim().split('\r\n')).toHaveLength(1);
      const scoped = await clientWithRole(admin, 'billing', { yardIds: [] });
      const none = await scoped.get(csvPath('xero'));
      expect(none.status).toBe(200);
      expect(parse(none.text, { columns: true })).toEqual([]);
    });

    it('refuses a malformed period, an unknown format, an unknown yard, a yard out of scope; changes nothing', async () => {
      const before = await billingRows(w);
      const scoped = await clientWithRole(admin, 'billing', { yardIds: [] });
      const cases: Array<[Client, string, number, string]> = [
        [admin, '/api/billing/invoice/export?period=2026-13&format=xero', 400, 'validation-failed'],
        [admin, '/api/billing/invoice/export?period=Feb&format=xero', 400, 'validation-failed'],
        [admin, '/api/billing/invoice/export?format=xero', 400, 'validation-failed'],
        [admin, '/api/billing/invoice/export?period=2026-02&format=sage', 400, 'validation-failed'],
        [admin, '/api/billing/invoice/export?period=2026-02', 400, 'validation-failed'],
        [admin, csvPath('xero', '&dateFormat=yy'), 400, 'validation-failed'],
        [admin, csvPath('xero', '&yardId=01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f'), 404, 'not-found'],
        [scoped, csvPath('xero', `&yardId=${w.yardId}`), 403, 'forbidden'],
      ];
      for (const [client, path, status, code] of cases) {
        const res = await client.get(path);
        expect(res.status, `${path}: ${res.text}`).toBe(status);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        expect(res.body.code, path).toBe(code);
      }
      expect(await billingRows(w)).toEqual(before);
    });

    it('a linked edge answers both exports with 409 cloud-owned', async () => {
      const edge = await serveLinkedEdge(w.site);
      try {
        for (const path of [csvPath('xero'), `/api/billing/invoice/${inv.prairie.id}/pdf`]) {
          const res = await edge.admin.get(path);
          expect(res.status, `${path}: ${res.text}`).toBe(409);
          expect(res.body.code).toBe('cloud-owned');
        }
      } finally {
        await edge.close();
      }
    });

    it('the OpenAPI document gives the media types', async () => {
      const doc = (await admin.get('/v3/api-docs')).body;
      expect(Object.keys(doc.paths['/api/billing/invoice/{id}/pdf'].get.responses['200'].content)).toEqual([
        'application/pdf',
      ]);
      expect(Object.keys(doc.paths['/api/billing/invoice/export'].get.responses['200'].content)).toEqual([
        'text/csv',
      ]);
      expect(await query(w.t.db, 'SELECT count(*) AS n FROM invoice')).toEqual([{ n: 4 }]);
    });
  });
});

describe('the pieces (pure)', () => {
  it('amounts are written from integers in the currency’s minor units', () => {
    expect(decimalAmount(-2_000, 'USD')).toBe('-20.00');
    expect(decimalAmount(5, 'USD')).toBe('0.05');
    expect(decimalAmount(-5, 'EUR')).toBe('-0.05');
    expect(decimalAmount(12_345, 'JPY')).toBe('12345');
    expect(decimalAmount(1_234, 'BHD')).toBe('1.234');
    expect(decimalAmount(9_007_199_254_740_991, 'USD')).toBe('90071992547409.91');
    expect(formatMoney(12_345, 'JPY', 'ja-JP')).toBe('￥12,345');
    expect(formatMoney(-3_248, 'USD', 'en-US')).toBe('-$32.48');
  });

  it('formula escaping covers = + - @ tab and CR, at the start and after a separator, and nothing else', () => {
    for (const s of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])
      expect(neutralizeFormula(s)).toBe(`'${s}`);
    expect(neutralizeFormula('Acme;=1+1')).toBe("Acme;'=1+1");
    expect(neutralizeFormula('=A, +B')).toBe("'=A, '+B");
    for (const s of ['Prairie', '1-2', ' =x', '', "O'Hare Freight - East, Inc."])
      expect(neutralizeFormula(s)).toBe(s);
  });

  it('the tax spread over lines adds up to the invoice tax exactly, credits too', () => {
    // 23.10 over 280.00: exact shares 825, 742.5, 412.5, 82.5, 412.5, -165 (floors sum to 2308); the
    // two units left go to the largest remainders, ties to the earlier line: 743 and 413.
    const line = (amount: number) => ({ item: '', description: '', quantity: 1, unitAmount: amount, amount });
    expect(
      spreadTax(
        [line(10_000), line(9_000), line(5_000), line(1_000), line(5_000), line(-2_000)],
        2_310,
        28_000,
      ),
    ).toEqual([825, 743, 413, 82, 412, -165]);
    const credit = spreadTax([line(1_500), line(500), line(-5_000)], -248, -3_000);
    expect(credit.reduce((a, b) => a + b, 0)).toBe(-248);
    expect(spreadTax([line(1), line(1), line(1)], 1, 3).reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('text outside WinAnsi is transliterated for the built-in PDF fonts', () => {
    expect(winAnsi('Łódź Spedycja – “Ž” €5')).toBe('Lódz Spedycja – “Ž” €5');
    expect(winAnsi('Straße Müller')).toBe('Straße Müller');
    expect(winAnsi('Ōsaka 物流')).toBe('Osaka ??');
  });
});
