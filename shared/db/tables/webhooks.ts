import type { Generated } from 'kysely';

/** Signed webhooks and the job leases (migration 0021): local to the cloud (or a standalone edge), never synced. */

/** One holder per background job across the cloud's nodes (shared/db/job-lease.ts). */
export interface JobLeaseTable {
  name: string;
  owner: string;
  epoch: number;
  expiresAt: number;
}

export interface WebhookEndpointTable {
  id: string;
  url: string;
  description: string | null;
  /** JSON array of webhook event types. */
  eventTypes: string;
  /** JSON array of yard ids, NULL = every yard. */
  yardIds: string | null;
  /** JSON array of carrier ids, NULL = every carrier. */
  carrierIds: string | null;
  secret: string;
  enabled: Generated<number>;
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
  version: Generated<number>;
}

export interface WebhookEventTable {
  /** Assigned by the database; the order of the events of one resource. */
  seq: Generated<number>;
  id: string;
  type: string;
  resourceKey: string;
  yardId: string | null;
  carrierId: string | null;
  payload: string;
  occurredAt: number;
  createdAt: number;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveryTable {
  id: string;
  endpointId: string;
  eventSeq: number;
  resourceKey: string;
  status: Generated<WebhookDeliveryStatus>;
  attempts: Generated<number>;
  nextAttemptAt: number;
  giveUpAt: number;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: number | null;
  replay: Generated<number>;
  createdAt: number;
}

export interface WebhookAttemptTable {
  /** Assigned by the database. */
  id: Generated<number>;
  deliveryId: string;
  n: number;
  at: number;
  durationMs: number | null;
  node: string | null;
  httpStatus: number | null;
  error: string | null;
  responseBody: string | null;
  replay: Generated<number>;
}
