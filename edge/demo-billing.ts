/** The demo's API client and records, as far as billing needs them (demo-data.ts calls this file). */
type Call = (method: string, path: string, body?: unknown) => Promise<unknown>;
interface DemoRecords {
  yard: { id: string };
  carriers: Array<{ id: string }>;
}

/**
 * The demo yard's billing configs (DOMAIN.md "Billing"), made where billing lives: at a standalone
 * edge, or at the cloud when the edge is linked. Dallas: US dollars, Texas sales tax 8.25 %, 30 grace
 * minutes, list prices in cents; each demo carrier has an agreement that overrides some of them.
 */
export async function seedBillingConfigs(
  api: Call,
  master: DemoRecords,
  progress: (step: string) => void,
): Promise<void> {
  const { yard, carriers } = master;
  await api('POST', '/api/billing/config', {
    yardId: yard.id,
    currency: 'USD',
    taxRateBp: 825,
    graceMinutes: 30,
    spaceMonthlyRate: 15_000,
    overageDailyRate: 2_500,
    moveFee: 1_500,
    gateFee: 500,
    issuerName: 'Dallas Cross-Dock LLC',
    issuerAddress: '1200 Freight Way, Dallas, TX 75212',
    issuerTaxId: '75-1234567',
    paymentTermsDays: 30,
  });
  const [loneStar, prairie, gulfCoast] = carriers;
  if (!loneStar || !prairie || !gulfCoast) throw new Error('the demo has three carriers');
  const agreements = [
    // Six reserved spaces at a negotiated space rate, and a monthly minimum.
    {
      carrier: loneStar,
      bookedSpaces: 6,
      spaceMonthlyRate: 14_000,
      minimumMonthly: 75_000,
      billToName: 'Lone Star Logistics – Accounts Payable',
      billToEmail: 'ap@lonestar-logistics.example',
    },
    // Two spaces at list price, a cheaper move fee.
    { carrier: prairie, bookedSpaces: 2, moveFee: 1_200, billToEmail: 'billing@prairiehaulers.example' },
    // Pay as you go: no reserved spaces, every rate the yard's.
    { carrier: gulfCoast, billToEmail: 'payables@gulfcoastcarriers.example' },
  ];
  for (const { carrier, ...rates } of agreements) {
    await api('POST', `/api/billing/config/${yard.id}/carrier`, { carrierId: carrier.id, ...rates });
  }
  progress('billing configs (USD, 8.25 % tax, a rate agreement per carrier)');
}
