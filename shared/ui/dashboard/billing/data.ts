import { useEffect, useState } from 'preact/hooks';
import { api, call, type Schemas } from '../../common/api/client';
import { ProblemError } from '../../common/api/problem';

export type YardConfig = Schemas['BillingYardConfigWithCarriers'];
export type CarrierConfig = Schemas['BillingCarrierConfig'];
export type Carrier = Schemas['Carrier'];
export type Summary = Schemas['BillingSummary'];
export type Invoice = Schemas['Invoice'];
export type InvoiceSummary = Schemas['InvoiceSummary'];
export type Adjustment = Schemas['InvoiceAdjustment'];
export type OverageDay = Schemas['OverageDay'];

/** Every carrier (the API's page limit is 500; a yard's carriers fit a few pages). */
export async function loadCarriers(): Promise<Carrier[]> {
  const out: Carrier[] = [];
  let cursor: string | undefined;
  do {
    const page = await call(api.GET('/api/carrier', { params: { query: { limit: 500, cursor } } }));
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The yard's billing config with its carrier configs; null when the yard has none yet (404). */
export async function loadYardConfig(yardId: string): Promise<YardConfig | null> {
  try {
    return await call(
      api.GET('/api/billing/config/{yardId}/with-carriers', { params: { path: { yardId } } }),
    );
  } catch (err) {
    if (err instanceof ProblemError && err.status === 404) return null;
    throw err;
  }
}

export interface BillingBase {
  config: YardConfig | null;
  carriers: Carrier[];
}

/**
 * What every billing page needs of the chosen yard: its config (currency, rates) and the carriers
 * by name. `reload` after a change; `problem` when it could not be read (a linked edge: cloud-owned).
 */
export function useBillingBase(yardId: string | undefined) {
  const [base, setBase] = useState<BillingBase | null>(null);
  const [problem, setProblem] = useState<unknown>(null);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    if (!yardId) return;
    let live = true;
    setProblem(null);
    Promise.all([loadYardConfig(yardId), loadCarriers()]).then(
      ([config, carriers]) => live && setBase({ config, carriers }),
      (err: unknown) => live && setProblem(err),
    );
    return () => {
      live = false;
    };
  }, [yardId, generation]);
  return { base, problem, reload: () => setGeneration((g) => g + 1) };
}

/** "Lone Star Logistics (LSLG)"; an unknown id is shown as itself rather than hidden. */
export function carrierName(carriers: Carrier[], id: string): string {
  const c = carriers.find((x) => x.id === id);
  if (!c) return id;
  return c.scac ? `${c.name} (${c.scac})` : c.name;
}

// What the billing screens read and write, one function each: the components call these, never the
// API client (the dashboard's data-layer rule in .dependency-cruiser.cjs).

export type CurrencyTotal = Schemas['BillingCurrencyTotal'];
export type GenerateAllResult = Schemas['InvoiceGenerateAllResult'];

/** The billing summaries of one period in one yard, with their totals per currency. */
export function loadSummaries(yardId: string, period: string) {
  return call(
    api.GET('/api/billing/summary', { params: { query: { period, yardIds: [yardId], limit: 500 } } }),
  );
}

/** Recalculates the summaries: the ongoing period from the activity so far, a past one as a whole. */
export async function calculateSummaries(yardId: string, period: string, ongoing: boolean): Promise<void> {
  if (ongoing) await call(api.POST('/api/billing/summary/generate', { body: { yardId } }));
  else await call(api.POST('/api/billing/summary/generate-past', { body: { period, yardId } }));
}

/** A period's adjustments in the yard, of one carrier or of all. */
export async function loadAdjustments(q: {
  yardId: string;
  period: string;
  carrierId?: string;
}): Promise<Adjustment[]> {
  const { yardId, period, carrierId } = q;
  const page = await call(
    api.GET('/api/billing/invoice-adjustment', {
      params: { query: { yardId, period, ...(carrierId ? { carrierId } : {}), limit: 500 } },
    }),
  );
  return page.items;
}

export function createAdjustment(body: Schemas['InvoiceAdjustmentCreate']): Promise<Adjustment> {
  return call(api.POST('/api/billing/invoice-adjustment', { body }));
}

export async function deleteAdjustment(id: string): Promise<void> {
  await call(api.DELETE('/api/billing/invoice-adjustment/{id}', { params: { path: { id } } }));
}

/** One invoice with the adjustments of its carrier's month. */
export async function loadInvoice(id: string): Promise<{ invoice: Invoice; adjustments: Adjustment[] }> {
  const invoice = await call(api.GET('/api/billing/invoice/{id}', { params: { path: { id } } }));
  const { yardId, carrierId, period } = invoice;
  const adjustments = await loadAdjustments({ yardId, carrierId, period });
  return { invoice, adjustments };
}

export interface InvoiceQuery {
  yardId?: string;
  carrierId?: string;
  status?: 'draft' | 'issued' | 'void';
  period?: string;
}

/** A page of the light invoice list (totals without lines); an empty filter is left out. */
export function loadInvoiceSummaries(filters: InvoiceQuery, cursor: string | undefined) {
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(filters)) if (v) query[k] = v;
  return call(
    api.GET('/api/billing/invoice/summaries', {
      params: { query: { limit: 100, ...(cursor ? { cursor } : {}), ...(query as InvoiceQuery) } },
    }),
  );
}

/** A draft for one carrier's past month; `force` generates although the site has not sent it all. */
export function generateInvoice(body: Schemas['InvoiceGenerate']): Promise<Invoice> {
  return call(api.POST('/api/billing/invoice', { body }));
}

export function generateAllInvoices(force: boolean): Promise<GenerateAllResult> {
  return call(api.POST('/api/billing/invoice/generate-all', { body: force ? { force: true } : {} }));
}

/** Recalculates a draft from the activity and adjustments now. */
export function recalculateInvoice(inv: Invoice): Promise<Invoice> {
  const path = { yardId: inv.yardId, carrierId: inv.carrierId, period: inv.period };
  return call(api.PUT('/api/billing/invoice/{yardId}/{carrierId}/{period}', { params: { path }, body: {} }));
}

export function issueInvoice(inv: Invoice): Promise<Invoice> {
  return call(api.POST('/api/billing/invoice/{id}/issue', { params: { path: { id: inv.id } } }));
}

export function voidInvoice(inv: Invoice, reason: string): Promise<Invoice> {
  return call(
    api.POST('/api/billing/invoice/{id}/void', { params: { path: { id: inv.id } }, body: { reason } }),
  );
}

export async function deleteInvoice(inv: Invoice): Promise<null> {
  await call(api.DELETE('/api/billing/invoice/{id}', { params: { path: { id: inv.id } } }));
  return null;
}

/** Creates or replaces (PUT, the whole config; an empty rate is 0) the yard's billing config. */
export async function saveYardConfig(yardId: string, body: Record<string, unknown>): Promise<void> {
  await call(api.PUT('/api/billing/config/{yardId}', { params: { path: { yardId } }, body: body as never }));
}

/** A carrier's agreement in the yard: created (POST) when new, else replaced whole (PUT). */
export async function saveCarrierConfig(
  yardId: string,
  carrierId: string,
  body: Record<string, unknown>,
  isNew: boolean,
): Promise<void> {
  if (isNew)
    await call(
      api.POST('/api/billing/config/{yardId}/carrier', {
        params: { path: { yardId } },
        body: { carrierId, ...body } as never,
      }),
    );
  else
    await call(
      api.PUT('/api/billing/config/{yardId}/carrier/{carrierId}', {
        params: { path: { yardId, carrierId } },
        body: body as never,
      }),
    );
}

export async function deleteCarrierConfig(id: string): Promise<void> {
  await call(api.DELETE('/api/billing/carrier-config/{id}', { params: { path: { id } } }));
}
