import { api, call, type Schemas } from '../common/api/client';

/** The carrier's issued and void invoices (drafts are never shown), read by the Invoices screen only. */
export type Invoice = Schemas['CarrierInvoice'];

export async function invoices(): Promise<Invoice[]> {
  const page = await call(api.GET('/api/carrier-portal/invoice', { params: { query: { limit: 100 } } }));
  return page.items;
}
