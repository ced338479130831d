import type { CoreParts } from '../../core-parts.js';
import type { ExistingYards } from '../auth/admin-scope.js';
import type { CarrierService } from '../carriers/service.js';
import { WebhookDeliveries } from './deliveries.js';
import { webhookEndpointPolicy } from './endpoint-policy.js';
import { WebhookEndpoints } from './endpoints.js';
import { EndpointRepo } from './repo.js';
import type { WebhookServices } from './routes.js';

/**
 * Signed webhooks (docs/webhooks.md), as one part chosen at the composition root from the role
 * profile's `integrators` (shared/role-parts.ts): webhooksHere at the cloud and a standalone edge,
 * webhooksAtCloud at a linked edge, whose routes answer 409 `cloud-owned` and which writes no outbox.
 */
export interface WebhooksPart {
  /** The services behind the routes; null where webhooks are the cloud's. */
  services: WebhookServices | null;
}

export type WebhooksDeps = Pick<CoreParts, 'kysely' | 'clock' | 'config'> & {
  yards: ExistingYards;
  carriers: Pick<CarrierService, 'getRow'>;
};

export function webhooksHere(deps: WebhooksDeps): WebhooksPart {
  const policy = webhookEndpointPolicy(deps.config.webhooks);
  const endpoints = new WebhookEndpoints({ ...deps, repo: new EndpointRepo(deps.kysely), policy });
  const deliveries = new WebhookDeliveries({ ...deps, endpoints, wake: () => undefined });
  return { services: { endpoints, deliveries } };
}

export function webhooksAtCloud(): WebhooksPart {
  return { services: null };
}
