import { randomBytes } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import { toIso, toIsoOrNull } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import { pageInMemory } from '../../http/cursor.js';
import { AppError, NotFoundError, PreconditionFailedError, ValidationError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import {
  assertAddressAllowed,
  type OutboundPolicy,
  OutboundRefusedError,
} from '../../net/outbound-policy.js';
import { assertMayGrant, type ExistingYards, isWithinScope } from '../auth/admin-scope.js';
import type { CarrierService } from '../carriers/service.js';
import type { WebhookEventType } from './event-types.js';
import type { EndpointHealthRow, EndpointRepo, EndpointRow } from './repo.js';
import type {
  WebhookEndpointCreateT,
  WebhookEndpointOutT,
  WebhookEndpointPatchT,
  WebhookEndpointWithSecretT,
} from './schema.js';

export type EndpointDeps = Pick<CoreParts, 'kysely' | 'clock'> & {
  repo: EndpointRepo;
  /** The yards an admin may name (the yards service). */
  yards: ExistingYards;
  /** Carriers named in a filter must exist (the carriers service). */
  carriers: Pick<CarrierService, 'getRow'>;
  /** Where endpoints may be (endpoint-policy.ts). */
  policy: OutboundPolicy;
};

/**
 * The webhook endpoints an admin registers (docs/webhooks.md). The signing secret is made here and
 * shown once, on create and on rotate. An endpoint's yard filter is its scope, under the admin scope
 * rule of users and API keys (auth/admin-scope.ts): a yard-scoped admin sees and manages only
 * endpoints limited to its yards, and cannot register one for every yard.
 */
export class WebhookEndpoints {
  constructor(private readonly deps: EndpointDeps) {}

  async list(principal: Principal, query: { limit: number; cursor?: string | undefined }) {
    const rows = (await this.deps.repo.all()).filter((r) => isWithinScope(principal, parseIds(r.yardIds)));
    const page = pageInMemory(rows, query, (r) => [r.id]);
    const health = await this.healthOf(page.items.map((r) => r.id));
    return { items: page.items.map((r) => endpointOut(r, health.get(r.id))), nextCursor: page.nextCursor };
  }

  async get(principal: Principal, id: string): Promise<WebhookEndpointOutT> {
    const row = await this.visible(principal, id);
    return endpointOut(row, (await this.healthOf([id])).get(id));
  }

  async create(principal: Principal, input: WebhookEndpointCreateT): Promise<WebhookEndpointWithSecretT> {
    const yardIds = input.yardIds ?? null;
    await assertMayGrant(this.deps.yards, principal, yardIds, 'body.yardIds');
    await this.assertCarriersExist(input.carrierIds ?? null);
    await this.assertAddress(input.url);
    const now = this.deps.clock.now();
    const secret = newSecret();
    const row = await this.deps.repo.insert({
      id: newId(),
      url: input.url,
      description: input.description ?? null,
      eventTypes: JSON.stringify(input.events),
      yardIds: stringifyIds(yardIds),
      carrierIds: stringifyIds(input.carrierIds ?? null),
      secret,
      enabled: input.enabled ? 1 : 0,
      createdBy: principal.id,
      createdAt: now,
      updatedAt: now,
    });
    return { ...endpointOut(row, undefined), secret };
  }

  async update(
    principal: Principal,
    id: string,
    patch: WebhookEndpointPatchT,
    expectedVersion: number | undefined,
  ): Promise<WebhookEndpointWithSecretT> {
    const current = await this.visible(principal, id);
    if (expectedVersion !== undefined && expectedVersion !== current.version) {
      throw new PreconditionFailedError(current.version);
    }
    if (patch.yardIds !== undefined)
      await assertMayGrant(this.deps.yards, principal, patch.yardIds, 'body.yardIds');
    if (patch.carrierIds !== undefined) await this.assertCarriersExist(patch.carrierIds);
    if (patch.url !== undefined) await this.assertAddress(patch.url);
    const secret = patch.rotateSecret ? newSecret() : undefined;
    const row = await this.deps.repo.updateAt(this.deps.kysely, id, current.version, {
      ...(patch.url !== undefined ? { url: patch.url } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.events !== undefined ? { eventTypes: JSON.stringify(patch.events) } : {}),
      ...(patch.yardIds !== undefined ? { yardIds: stringifyIds(patch.yardIds) } : {}),
      ...(patch.carrierIds !== undefined ? { carrierIds: stringifyIds(patch.carrierIds) } : {}),
      ...(patch.enabled !== undefined ? { enabled: patch.enabled ? 1 : 0 } : {}),
      ...(secret ? { secret } : {}),
      updatedAt: this.deps.clock.now(),
    });
    if (!row) {
      // Changed (or removed) by another request between the read and the write.
      const now = await this.deps.repo.byId(id);
      if (!now) throw new NotFoundError('Webhook endpoint', id);
      throw new PreconditionFailedError(now.version);
    }
    const out = endpointOut(row, (await this.healthOf([id])).get(id));
    return secret ? { ...out, secret } : out;
  }

  /**
   * Removes the endpoint (soft: its delivery log stays readable to the database, not through the
   * API) and gives up its pending deliveries, in one transaction, so nothing more is sent to it.
   */
  async remove(principal: Principal, id: string): Promise<void> {
    await this.visible(principal, id);
    const now = this.deps.clock.now();
    await this.deps.kysely.transaction().execute(async (trx) => {
      await trx
        .updateTable('webhookEndpoint')
        .set({ deletedAt: now, enabled: 0, updatedAt: now })
        .where('id', '=', id)
        .execute();
      await trx
        .updateTable('webhookDelivery')
        .set({ status: 'failed', lastError: 'endpoint removed' })
        .where('endpointId', '=', id)
        .where('status', '=', 'pending')
        .execute();
    });
  }

  /** The endpoint, when it exists and lies inside the caller's admin scope; else 404. */
  async visible(principal: Principal, id: string): Promise<EndpointRow> {
    const row = await this.deps.repo.byId(id);
    if (!row || !isWithinScope(principal, parseIds(row.yardIds)))
      throw new NotFoundError('Webhook endpoint', id);
    return row;
  }

  private async healthOf(ids: string[]) {
    const [counts, errors] = await Promise.all([this.deps.repo.health(ids), this.deps.repo.lastErrors(ids)]);
    return new Map(ids.map((id) => [id, { ...counts.get(id), lastError: errors.get(id) ?? null }]));
  }

  private async assertAddress(url: string): Promise<void> {
    try {
      await assertAddressAllowed(url, this.deps.policy);
    } catch (err) {
      if (!(err instanceof OutboundRefusedError)) throw err;
      throw new AppError(400, 'address-refused', 'Address refused', err.message, [
        { path: 'body.url', message: err.message, code: 'address-refused' },
      ]);
    }
  }

  private async assertCarriersExist(carrierIds: string[] | null): Promise<void> {
    if (!carrierIds) return;
    const errors = [];
    for (const [i, carrierId] of carrierIds.entries()) {
      try {
        await this.deps.carriers.getRow(carrierId);
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
        errors.push({
          path: `body.carrierIds.${i}`,
          message: `no carrier with id ${carrierId}`,
          code: 'unknown-carrier',
        });
      }
    }
    if (errors.length > 0) throw new ValidationError(errors);
  }
}

/** 'whsec_' + base64 of 32 random bytes: the form the Standard Webhooks libraries take. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function parseIds(json: string | null): string[] | null {
  return json === null ? null : (JSON.parse(json) as string[]);
}

function stringifyIds(ids: string[] | null): string | null {
  return ids === null ? null : JSON.stringify(ids);
}

type Health = Partial<EndpointHealthRow> & { lastError: string | null };

export function endpointOut(row: EndpointRow, health: Health | undefined): WebhookEndpointOutT {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.eventTypes) as WebhookEventType[],
    yardIds: parseIds(row.yardIds),
    carrierIds: parseIds(row.carrierIds),
    enabled: row.enabled === 1,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    version: row.version,
    health: {
      pending: health?.pending ?? 0,
      failed: health?.failed ?? 0,
      lastDeliveredAt: toIsoOrNull(health?.lastDeliveredAt),
      lastError: health?.lastError ?? null,
    },
  };
}
