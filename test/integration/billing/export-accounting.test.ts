import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { migrate } from '../../../shared/db/migrate.js';
import { migratePostgres } from '../../../shared/db/migrate-postgres.js';
import { shortNumber } from '../../../shared/modules/billing/invoice/number.js';
import type { Client } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import {
  type BillingWorld,
  billingRows,
  closeBillingWorld,
  seedFebruary,
  startBillingWorld,
} from './fixture.js';

type Rec = Record<string, string>;

/**
 * What the accounting imports get (docs/domain.md "Billing", exports), February 2026 of the
 * fixture's yard renamed ACCRINGTON1, so that Prairie's number ACCRINGTON1-202602-PRFL (23
 * characters) is too long for QuickBooks Online (21):
 * - invoice numbers: the full number where it fits, else the short form, unique in the database;
 * - credit notes (Lone Hauler, credited 200.00 for its 105.00 of charges) in Xero's credit-note
 *   template and as QuickBooks credit memos, with the credit positive;
 * - names checked where they are entered, written exactly; a name stored before the check that
 *   hides a formula after a separator is neutralized.
 */
describe.each(TEST_DIALECTS)('accounting exports (%s)', (dialect) => {
  const clock = new ManualClock(Date.parse('2026-01-20T12:00:00Z'));
  const BILL_TO = "O'Hare Freight - East, Inc.";
  let w: BillingWorld;
  let admin: Client;
  const inv: Record<
    'prairie' | 'credit',
    { id: string; number: string; exportNumber: string; total: number }
  > = {} as never;

  async function generateIssued(carrierId: string) {
    const res = await admin.post('/api/billing/invoice', { yardId: w.yardId, carrierId, period: '2026-02' });
    expect(res.status, res.text).toBe(201);
    const issued = await admin.post(`/api/billing/invoice/${res.body.id}/issue`);
    expect(issued.status, issued.text).toBe(200);
    return issued.body;
  }
  const csv = async (format: string, kind?: string) => {
    const res = await admin.get(
      `/api/billing/invoice/export?period=2026-02&format=${format}${kind ? `&kind=${kind}` : ''}`,
    );
    expect(res.status, res.text).toBe(200);
    return { res, records: parse(res.text, { columns: true }) as Rec[] };
  };
  const minor = (decimal: string) => {
    expect(decimal).toMatch(/^-?\d+\.\d{2}$/);
    return Number(decimal.replace('.', ''));
  };

  beforeAll(async () => {
    w = await startBillingWorld(clock, { dialect });
    admin = w.admin;
    await seedFebruary(w);
    const renamed = await admin.patch(`/api/yard/${w.yardId}`, { code: 'ACCRINGTON1' });
    expect(renamed.status, renamed.text).toBe(200);
    clock.set('2026-03-05T12:00:00Z');
    // Entered through the API: a bill-to name with an apostrophe, a dash and a comma is a name.
    const config = await admin.put(`/api/billing/config/${w.yardId}/carrier/${w.noScac}`, {
      billToName: BILL_TO,
    });
    expect(config.status, config.text).toBe(201);
    const credit = await admin.post('/api/billing/invoice-adjustment', {
      yardId: w.yardId,
      carrierId: w.noScac,
      period: '2026-02',
      amount: -20_000,
      description: 'Storm closure credit',
    });
    expect(credit.status, credit.text).toBe(201);
    // Stored before names were checked where they are entered (the API refuses it now).
    await w.t.core.kysely
      .updateTable('billingCarrierConfig')
      .set({ billToName: 'Prairie;=1+1' })
      .where('carrierId', '=', w.prairie)
      .execute();
    inv.prairie = await generateIssued(w.prairie);
    inv.credit = await generateIssued(w.noScac);
  });
  afterAll(() => closeBillingWorld(w));

  describe('invoice numbers for accounting imports', () => {
    it('a number longer than 21 characters gets its short form, in the API; one that fits keeps itself', async () => {
      expect(inv.prairie.number).toBe('ACCRINGTON1-202602-PRFL');
      expect(inv.prairie.exportNumber).toBe(shortNumber(inv.prairie.number, '2026-02'));
      expect(inv.prairie.exportNumber).toMatch(/^ACCRI-2602-[0-9A-HJKMNP-TV-Z]{10}$/);
      expect(inv.credit.number.length).toBeGreaterThan(21);
      expect(inv.credit.exportNumber.length).toBeLessThanOrEqual(21);
      const summaries = (await admin.get('/api/billing/invoice/summaries?period=2026-02')).body.items;
      expect(summaries.map((s: Rec) => s.exportNumber).sort()).toEqual(
        [inv.prairie.exportNumber, inv.credit.exportNumber].sort(),
      );
      // A number that fits is its own export number.
      expect(shortNumber('B1-202602-PRFL', '2026-02')).not.toBe('B1-202602-PRFL');
      const rows = await w.t.core.kysely.selectFrom('invoice').select(['number', 'exportNumber']).execute();
      for (const r of rows) expect(r.exportNumber!.length).toBeLessThanOrEqual(21);
    });

    it('the database refuses a second invoice with the same export number', async () => {
      const row = await w.t.core.kysely
        .selectFrom('invoice')
        .selectAll()
        .where('id', '=', inv.prairie.id)
        .executeTakeFirstOrThrow();
      const copy = {
        ...row,
        id: '01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f',
        number: 'OTHER-1',
        sequence: 7,
        status: 'void' as const,
      };
      await expect(w.t.core.kysely.insertInto('invoice').values(copy).execute()).rejects.toThrow(
        /unique|duplicate/i,
      );
      await w.t.core.kysely
        .insertInto('invoice')
        .values({ ...copy, exportNumber: 'OTHER-1' })
        .execute();
      await w.t.core.kysely.deleteFrom('invoice').where('id', '=', copy.id).execute();
    });

    it('is deterministic: a draft deleted and generated again gets the same export number', async () => {
      const voided = await admin.post(`/api/billing/invoice/${inv.prairie.id}/void`, {
        reason: 'Re-invoiced',
      });
      expect(voided.status, voided.text).toBe(200);
      const first = await admin.post('/api/billing/invoice', {
        yardId: w.yardId,
        carrierId: w.prairie,
        period: '2026-02',
      });
      expect(first.status, first.text).toBe(201);
      expect(first.body.number).toBe('ACCRINGTON1-202602-PRFL-2');
      expect(first.body.exportNumber).toBe(shortNumber(first.body.number, '2026-02'));
      expect(first.body.exportNumber).not.toBe(inv.prairie.exportNumber);
      expect((await admin.delete(`/api/billing/invoice/${first.body.id}`)).status).toBe(204);
      const again = await admin.post('/api/billing/invoice', {
        yardId: w.yardId,
        carrierId: w.prairie,
        period: '2026-02',
      });
      expect(again.body.exportNumber).toBe(first.body.exportNumber);
      inv.prairie = await (async () => {
        const issued = await admin.post(`/api/billing/invoice/${again.body.id}/issue`);
        expect(issued.status, issued.text).toBe(200);
        return issued.body;
      })();
    });

    it('both CSVs carry the export number; the PDF prints it beside the full one', async () => {
      const xero = (await csv('xero')).records;
      const qb = (await csv('quickbooks')).records;
      expect([...new Set(xero.map((r) => r['*InvoiceNumber']))]).toEqual([inv.prairie.exportNumber]);
      expect([...new Set(qb.map((r) => r.InvoiceNo))]).toEqual([inv.prairie.exportNumber]);
      const xeroCredit = (await csv('xero', 'credit-note')).records;
      const qbCredit = (await csv('quickbooks', 'credit-note')).records;
      expect([...new Set(xeroCredit.map((r) => r['*CreditNoteNumber']))]).toEqual([inv.credit.exportNumber]);
      expect([...new Set(qbCredit.map((r) => r.CreditMemoNo))]).toEqual([inv.credit.exportNumber]);

      const text = await pdfText(`/api/billing/invoice/${inv.prairie.id}/pdf`);
      expect(text).toContain(`Number: ${inv.prairie.number}`);
      expect(text).toContain(`Accounting number: ${inv.prairie.exportNumber}`);
    });
  });

  describe('credit notes', () => {
    it('Xero: the credit-note template, no due date, the credit positive and adding up to the credit', async () => {
      const { res, records } = await csv('xero', 'credit-note');
      expect(res.headers.get('content-disposition')).toBe(
        'attachment; filename="credit-notes-2026-02-xero.csv"',
      );
      expect(Object.keys(records[0]!)).toEqual([
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
        '*CreditNoteNumber',
        'Reference',
        '*CreditNoteDate',
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
      ]);
      expect(inv.credit.total).toBeLessThan(0);
      const sum = records.reduce(
        (s, r) => s + Number(r['*Quantity']) * minor(r['*UnitAmount']!) + minor(r.TaxAmount!),
        0,
      );
      expect(sum).toBe(-inv.credit.total);
      const byLine = Object.fromEntries(records.map((r) => [r['*Description'], minor(r['*UnitAmount']!)]));
      // The credit positive; the charges it offsets negative (Lone Hauler's space, gate).
      expect(byLine['Storm closure credit']).toBe(20_000);
      expect(byLine['Booked spaces, 2026-02']).toBe(-10_000);
      expect(byLine['Gate check-ins, 2026-02']).toBe(-500);
      for (const r of records)
        expect(r).toMatchObject({ '*CreditNoteDate': '05/03/2026', '*ContactName': BILL_TO });
      // The invoice file holds no credit note.
      expect(
        (await csv('xero')).records.filter((r) => r['*InvoiceNumber'] === inv.credit.exportNumber),
      ).toEqual([]);
    });

    it('QuickBooks Online: credit memos, no due date or terms, positive credit adding up with the tax', async () => {
      const { res, records } = await csv('quickbooks', 'credit-note');
      expect(res.headers.get('content-disposition')).toBe(
        'attachment; filename="credit-notes-2026-02-quickbooks.csv"',
      );
      expect(Object.keys(records[0]!)).toEqual([
        'CreditMemoNo',
        'Customer',
        'CreditMemoDate',
        'Memo',
        'Item(Product/Service)',
        'ItemDescription',
        'ItemQuantity',
        'ItemRate',
        'ItemAmount',
        'Taxable',
        'TaxRate',
      ]);
      const subtotal = records.reduce((s, r) => s + minor(r.ItemAmount!), 0);
      expect(subtotal).toBeGreaterThan(0);
      const tax = Math.floor((subtotal * 825 + 5_000) / 10_000);
      expect(subtotal + tax).toBe(-inv.credit.total);
      expect(records.map((r) => [r['Item(Product/Service)'], r.ItemAmount])).toEqual([
        ['Booked spaces', '-100.00'],
        ['Gate check-ins', '-5.00'],
        ['Adjustment', '200.00'],
      ]);
      for (const r of records) expect(r).toMatchObject({ CreditMemoDate: '03/05/2026', Customer: BILL_TO });
      expect(
        (await csv('quickbooks')).records.filter((r) => r.InvoiceNo === inv.credit.exportNumber),
      ).toEqual([]);
    });

    it('the credit note PDF shows no due date', async () => {
      const text = await pdfText(`/api/billing/invoice/${inv.credit.id}/pdf`);
      expect(text).toContain('CREDIT NOTE');
      expect(text).toContain('Issue date: 2026-03-05');
      expect(text).not.toMatch(/Due date|Payment terms/);
    });

    it('refuses an unknown kind', async () => {
      const res = await admin.get('/api/billing/invoice/export?period=2026-02&format=xero&kind=refund');
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation-failed');
    });
  });

  describe('names that reach the exports', () => {
    it('are refused where they are entered when a spreadsheet would read a formula in them; nothing changes', async () => {
      const before = await billingRows(w);
      const carriersBefore = (await admin.get('/api/carrier?limit=100')).body.items.length;
      const cases: Array<[string, string, unknown, string]> = [
        ['post', '/api/carrier', { name: 'Acme;=1+1' }, 'body.name'],
        ['post', '/api/carrier', { name: '=HYPERLINK("http://evil.example")' }, 'body.name'],
        ['post', '/api/carrier', { name: '-Haul Co' }, 'body.name'],
        ['post', '/api/carrier', { name: 'Acme, @SUM(A1)' }, 'body.name'],
        ['patch', `/api/carrier/${w.prairie}`, { name: '+1 Freight' }, 'body.name'],
        [
          'patch',
          `/api/billing/config/${w.yardId}/carrier/${w.noScac}`,
          { billToName: 'AP|=cmd' },
          'body.billToName',
        ],
        [
          'put',
          `/api/billing/config/${w.yardId}/carrier/${w.prairie}`,
          { billToName: '@AP' },
          'body.billToName',
        ],
        [
          'post',
          '/api/billing/invoice-adjustment',
          { yardId: w.yardId, carrierId: w.prairie, period: '2026-01', amount: -100, description: '=1+1' },
          'body.description',
        ],
      ];
      for (const [method, path, body, field] of cases) {
        const res = await (
          admin as unknown as Record<
            string,
            (p: string, b: unknown) => Promise<{ status: number; body: any; text: string }>
          >
        )[method]!(path, body);
        expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`).toBe(400);
        expect(res.body.code).toBe('validation-failed');
        const error = res.body.errors.find((e: { path: string }) => e.path === field);
        expect(error?.message, res.text).toContain('would read it as a formula');
      }
      expect(await billingRows(w)).toEqual(before);
      expect((await admin.get('/api/carrier?limit=100')).body.items.length).toBe(carriersBefore);
      // A yard code begins every invoice number: it starts with a letter or digit.
      const code = await admin.patch(`/api/yard/${w.yardId}`, { code: '-ACC' });
      expect(code.status, code.text).toBe(400);
      expect(code.body.errors[0].message).toContain('starting with a letter or digit');
      // A name is still a name: dashes, apostrophes, commas inside it are fine.
      const ok = await admin.post('/api/carrier', { name: "D'Arcy-Smith Haulage, Inc." });
      expect(ok.status, ok.text).toBe(201);
      expect(ok.body.name).toBe("D'Arcy-Smith Haulage, Inc.");
    });

    it('are written exactly as entered; one stored before the check is neutralized after its separator', async () => {
      const credit = (await csv('xero', 'credit-note')).records;
      for (const r of credit) expect(r['*ContactName']).toBe(BILL_TO);
      const qb = (await csv('quickbooks', 'credit-note')).records;
      for (const r of qb) expect(r.Customer).toBe(BILL_TO);
      const invoices = (await csv('quickbooks')).records;
      expect(invoices.length).toBeGreaterThan(0);
      for (const r of invoices) expect(r.Customer).toBe("Prairie;'=1+1");
    });
  });

  it('migration 0014 gives the invoices already there the export numbers the service gives', async () => {
    const numbers = async () =>
      (
        await w.t.core.kysely.selectFrom('invoice').select(['id', 'exportNumber']).orderBy('id').execute()
      ).map((r) => `${r.id} ${r.exportNumber}`);
    const expected = await numbers();
    expect(expected).toHaveLength(3); // Prairie void, Prairie -2, the credit note
    // The database as it was before 0014, then migrated again.
    await sql`DROP INDEX invoice_export_number`.execute(w.t.core.kysely);
    await sql`ALTER TABLE invoice DROP COLUMN export_number`.execute(w.t.core.kysely);
    await sql`DELETE FROM schema_migration WHERE version = 14`.execute(w.t.core.kysely);
    const db = w.t.db as unknown as {
      dialect: string;
      sqlite?: Parameters<typeof migrate>[0];
      pool?: Parameters<typeof migratePostgres>[0];
    };
    const applied = db.dialect === 'postgres' ? await migratePostgres(db.pool!) : migrate(db.sqlite!);
    expect(applied).toEqual([14]);
    expect(await numbers()).toEqual(expected);
  });

  async function pdfText(path: string) {
    const res = await fetch(`${admin.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(res.status).toBe(200);
    const parser = new PDFParse({ data: new Uint8Array(await res.arrayBuffer()) });
    try {
      return (await parser.getText()).text;
    } finally {
      await parser.destroy();
    }
  }
});
