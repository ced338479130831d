import type { CoreParts } from '../../core-parts.js';
import type { AnyRowObserver } from '../../sync/row-observers.js';
import type { ExistingYards } from '../auth/admin-scope.js';
import type { CarrierService } from '../carriers/service.js';
import { WebhookDeliveries } from './deliveries.js';
import { WebhookDispatcher } from './dispatcher.js';
import { webhookEndpointPolicy } from './endpoint-policy.js';
import { WebhookEndpoints } from './endpoints.js';
import { webhookOutbox } from './outbox.js';
import { type IntegratorEvents, integratorEvents, noIntegratorEvents } from './port.js';
import { EndpointRepo } from './repo.js';
import type { WebhookServices } from './routes.js';
import { WebhookSender } from './sender.js';

/**
 * Signed webhooks (docs/webhooks.md), as one part chosen at the composition root from the role
 * profile's `integrators` (shared/role-parts.ts): webhooksHere at the cloud and a standalone edge,
 * webhooksAtCloud at a linked edge, whose routes answer 409 `cloud-owned` and which writes no outbox
 * (its appointment and movement rows reach the cloud by sync, and the cloud's outbox takes them).
 */
export interface WebhooksPart {
  /** The services behind the routes; null where webhooks are the cloud's. */
  services: WebhookServices | null;
  /** The outbox, told of every appointment history row and movement written (services.ts adds it). */
  outbox: AnyRowObserver | null;
  /** Sends the deliveries (started and stopped with the app). */
  dispatcher: WebhookDispatcher | null;
  /** Events a module makes in its own transaction (invoices issued and voided: port.ts). */
  events: IntegratorEvents;
}

export type WebhooksDeps = Pick<CoreParts, 'db' | 'kysely' | 'clock' | 'config' | 'log' | 'changes'> & {
  yards: ExistingYards;
  carriers: Pick<CarrierService, 'getRow'>;
};

export function webhooksHere(deps: WebhooksDeps): WebhooksPart {
  const config = deps.config.webhooks;
  const policy = webhookEndpointPolicy(config);
  if (config.allowLocalEndpoints) {
    deps.log.warn(
      'webhooks.allowLocalEndpoints (YARD_WEBHOOKS_ALLOW_LOCAL_ENDPOINTS) is on: admins may register webhook endpoints on loopback and private addresses. Tests and labs only.',
    );
  }
  const sender = new WebhookSender({
    policy,
    timeoutMs: config.timeoutMs,
    caFile: config.caFile,
    userAgent: 'yard-service-webhooks/1 (+docs/webhooks.md)',
  });
  const dispatcher = new WebhookDispatcher({
    ...deps,
    sender,
    concurrency: config.concurrency,
    retentionDays: config.retentionDays,
  });
  const endpoints = new WebhookEndpoints({ ...deps, repo: new EndpointRepo(deps.kysely), policy });
  const deliveries = new WebhookDeliveries({ ...deps, endpoints, wake: () => dispatcher.wake() });
  return {
    services: { endpoints, deliveries },
    outbox: webhookOutbox(deps.db, deps.clock),
    dispatcher,
    events: integratorEvents(deps.db, deps.clock),
  };
}

export function webhooksAtCloud(): WebhooksPart {
  return { services: null, outbox: null, dispatcher: null, events: noIntegratorEvents };
}
