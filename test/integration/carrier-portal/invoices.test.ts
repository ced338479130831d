import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { type CarrierLogin, carrierClient } from '../../helpers/carrier-user.js';
import { type Client, clientWithRole } from '../../helpers/http.js';
import { TEST_DIALECTS } from '../../helpers/postgres.js';
import {
  type BillingWorld,
  checkIn,
  checkOut,
  closeBillingWorld,
  startBillingWorld,
} from '../billing/fixture.js';

/**
 * A carrier's invoices as its carrier users read them (docs/domain.md "Carriers and integrators";
 * docs/api.md "Carrier users, email, webhooks"): issued and void ones of its own carrier, never a
 * draft, and their PDFs through the billing PDF route.
 * Prairie: January issued (5 Mar 12:00), February issued (12:10) then voided (12:20), February again
 * left a draft. Lone Hauler: February issued. The yard is UTC with 30 days' terms: due 4 Apr 2026.
 */
describe.each(TEST_DIALECTS)('carrier portal invoices (%s)', (dialect) => {
  const clock = new ManualClock(Date.parse('2026-01-20T12:00:00Z'));
  let w: BillingWorld;
  let admin: Client;
  let prairie: CarrierLogin;
  const inv: Record<'jan' | 'febVoid' | 'febDraft' | 'lone', { id: string; number: string; total: number }> =
    {} as never;

  async function generate(carrierId: string, period: string) {
    const res = await admin.post('/api/billing/invoice', { yardId: w.yardId, carrierId, period });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; number: string; total: number };
  }
  async function issue(id: string, at: string) {
    clock.set(at);
    const res = await admin.post(`/api/billing/invoice/${id}/issue`);
    expect(res.status, res.text).toBe(200);
  }

  beforeAll(async () => {
    w = await startBillingWorld(clock, { dialect });
    admin = w.admin;
    const t1 = await checkIn(w, '2026-01-28T10:00:00.000Z', 'T1', w.prairie);
    await checkOut(w, '2026-02-03T10:00:00.000Z', t1.trailerId);
    const n1 = await checkIn(w, '2026-02-15T08:00:00.000Z', 'N1', w.noScac);
    await checkOut(w, '2026-02-16T08:00:00.000Z', n1.trailerId);
    clock.set('2026-03-05T11:00:00Z');
    inv.jan = await generate(w.prairie, '2026-01');
    await issue(inv.jan.id, '2026-03-05T12:00:00Z');
    inv.febVoid = await generate(w.prairie, '2026-02');
    await issue(inv.febVoid.id, '2026-03-05T12:10:00Z');
    clock.set('2026-03-05T12:20:00Z');
    const voided = await admin.post(`/api/billing/invoice/${inv.febVoid.id}/void`, {
      reason: 'Wrong PO number',
    });
    expect(voided.status, voided.text).toBe(200);
    inv.febDraft = await generate(w.prairie, '2026-02');
    inv.lone = await generate(w.noScac, '2026-02');
    await issue(inv.lone.id, '2026-03-05T12:30:00Z');
    prairie = await carrierClient(admin, w.prairie);
  });
  afterAll(() => closeBillingWorld(w));

  it('lists its own carrier’s issued and void invoices, newest issue first, never a draft', async () => {
    const res = await prairie.get('/api/carrier-portal/invoice');
    expect(res.status, res.text).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.items).toEqual([
      {
        id: inv.febVoid.id,
        number: inv.febVoid.number,
        yardId: w.yardId,
        yardName: expect.any(String),
        period: '2026-02',
        currency: 'USD',
        subtotal: expect.any(Number),
        tax: expect.any(Number),
        total: inv.febVoid.total,
        status: 'void',
        issuedAt: '2026-03-05T12:10:00.000Z',
        dueAt: '2026-04-04',
        voidedAt: '2026-03-05T12:20:00.000Z',
      },
      expect.objectContaining({
        id: inv.jan.id,
        period: '2026-01',
        status: 'issued',
        issuedAt: '2026-03-05T12:00:00.000Z',
        dueAt: '2026-04-04',
        voidedAt: null,
      }),
    ]);
    const ids = JSON.stringify(res.body);
    expect(ids).not.toContain(inv.febDraft.id);
    expect(ids).not.toContain(inv.lone.id);
  });

  it('filters by period and yard, and pages', async () => {
    const jan = await prairie.get('/api/carrier-portal/invoice?period=2026-01');
    expect(jan.body.items.map((i: { id: string }) => i.id)).toEqual([inv.jan.id]);
    const first = await prairie.get('/api/carrier-portal/invoice?limit=1');
    expect(first.body.items.map((i: { id: string }) => i.id)).toEqual([inv.febVoid.id]);
    const second = await prairie.get(`/api/carrier-portal/invoice?limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((i: { id: string }) => i.id)).toEqual([inv.jan.id]);
    expect(second.body.nextCursor).toBeNull();
    const elsewhere = await prairie.get(
      '/api/carrier-portal/invoice?yardId=01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f',
    );
    expect(elsewhere.body).toEqual({ items: [], nextCursor: null });
  });

  it('reads the PDF of its own issued and void invoices; a draft or another carrier’s is 404', async () => {
    for (const { id, number } of [inv.jan, inv.febVoid]) {
      const res = await fetch(`${prairie.baseUrl}/api/billing/invoice/${id}/pdf`, {
        headers: { authorization: `Bearer ${prairie.token}` },
      });
      expect(res.status).toBe(200);
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(Buffer.from(bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
      const text = (await new PDFParse({ data: bytes }).getText()).text;
      expect(text).toContain(number);
    }
    const noSuch = await prairie.get('/api/billing/invoice/01936b2e-8f3a-7c4d-9e5f-0a1b2c3d4e5f/pdf');
    expect(noSuch.status).toBe(404);
    for (const id of [inv.febDraft.id, inv.lone.id]) {
      const res = await prairie.get(`/api/billing/invoice/${id}/pdf`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'not-found', title: noSuch.body.title });
    }
    // Staff keep the draft's PDF.
    const billing = await clientWithRole(admin, 'billing');
    expect((await billing.get(`/api/billing/invoice/${inv.febDraft.id}/pdf`)).status).toBe(200);
  });

  it('the other billing routes stay closed to it, as unknown routes', async () => {
    const unknown = await prairie.get('/api/no-such-route');
    for (const path of ['/api/billing/invoice', `/api/billing/invoice/${inv.jan.id}/issue`]) {
      const res = path.endsWith('issue') ? await prairie.post(path) : await prairie.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: unknown.body.code, title: unknown.body.title });
    }
  });
});
