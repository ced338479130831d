import type { Api } from '../edge/demo-data.js';

/**
 * The demo's carrier user (docs/api.md "Roles and access"): the dispatcher of the demo carrier
 * Prairie Haulers, who books dock appointments in the carrier portal at the cloud. A fixed demo
 * login, printed with the others: do not expose a demo instance beyond your own machine.
 */
export const DEMO_CARRIER_USER = {
  username: 'prairie.dispatch',
  password: 'prairie-demo-pass',
  carrierScac: 'PRHL',
} as const;

/** Creates the carrier user for the demo's Prairie Haulers (once, on a fresh demo). */
export async function seedCarrierUser(
  api: Api,
  carriers: Array<{ id: string; scac?: string | null; name: string }>,
  progress: (step: string) => void,
): Promise<void> {
  const prairie = carriers.find((c) => c.scac === DEMO_CARRIER_USER.carrierScac);
  if (!prairie) throw new Error(`the demo carrier ${DEMO_CARRIER_USER.carrierScac} is missing`);
  await api('POST', '/api/user', {
    username: DEMO_CARRIER_USER.username,
    password: DEMO_CARRIER_USER.password,
    displayName: `${prairie.name} dispatch`,
    role: 'carrier',
    carrierId: prairie.id,
  });
  progress(`carrier user ${DEMO_CARRIER_USER.username} for ${prairie.name}`);
}
