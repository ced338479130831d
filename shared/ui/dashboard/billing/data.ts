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
