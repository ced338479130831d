import { describe, expect, it } from 'vitest';
import { SYNCED_ENTITIES, SYNCED_SQL_TABLES, toSnake } from '../../../shared/sync/entities.js';

/**
 * Webhook endpoints (with their signing secrets), events, deliveries and attempts stay where they are
 * delivered from, and job leases are each node group's own (docs/sync.md "Conflict rules": cloud
 * only, never sent to sites). A table that is not synced cannot reach a change log or a site's
 * snapshot, so registering one of these later would be a leak: this test names them.
 */
const CLOUD_ONLY = ['job_lease', 'webhook_endpoint', 'webhook_event', 'webhook_delivery', 'webhook_attempt'];

describe('tables that never sync', () => {
  it('are none of the synced entities', () => {
    const synced = new Set([...SYNCED_SQL_TABLES, ...SYNCED_ENTITIES.map((e) => toSnake(e.table))]);
    expect(CLOUD_ONLY.filter((t) => synced.has(t))).toEqual([]);
  });
});
