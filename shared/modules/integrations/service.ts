import { z } from 'zod';
import type { Principal } from '../../auth/principal.js';
import type { CameraProviderKind, Snapshot } from '../../cameras/types.js';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { newId } from '../../ids.js';
import type { OutboundPolicy } from '../../net/outbound-policy.js';
import type { SettingsService } from '../settings/service.js';
import { assertSecretsFollowAddresses, refusedAddresses, urlFields } from './addresses.js';
import { kindOf, parseConfig } from './kinds.js';
import { ProviderCameras } from './provider-cameras.js';
import { IntegrationRepo, type IntegrationRow } from './repo.js';
import type {
  IntegrationCreateT,
  IntegrationOutT,
  IntegrationPatchT,
  ProviderCameraOutT,
  ProviderFailureOutT,
} from './schema.js';
import { keepStoredSecrets, maskSecrets } from './secrets.js';

export type IntegrationDeps = Pick<CoreParts, 'kysely' | 'clock' | 'changes' | 'cameras'> & {
  /** The snapshot timeout and the outbound address setting. */
  settings: Pick<SettingsService, 'get'>;
};

/** An integration without its config (which holds secrets). */
export interface IntegrationSummary {
  id: string;
  name: string;
  kind: string;
  enabled: number;
}

/**
 * Integrations with outside services (camera providers). Configs are validated by the kind's zod
 * schema; secrets are write-only. Calls to the providers themselves (their cameras, pictures and
 * connections) are in provider-cameras.ts.
 */
export class IntegrationService {
  private readonly repo: IntegrationRepo;
  private readonly live: ProviderCameras;

  constructor(private readonly deps: IntegrationDeps) {
    this.repo = new IntegrationRepo(deps.kysely);
    this.live = new ProviderCameras({ ...deps, repo: this.repo });
  }

  kinds(): readonly CameraProviderKind[] {
    return this.deps.cameras.providers;
  }

  kindsWithSchemas() {
    return this.kinds().map((k) => ({
      kind: k.kind,
      title: k.title,
      description: k.description,
      configSchema: z.toJSONSchema(k.configSchema, { io: 'input', unrepresentable: 'any' }) as Record<
        string,
        unknown
      >,
      secretFields: k.secretFields,
    }));
  }

  async list(opts: {
    limit: number;
    cursor?: string | undefined;
    kind?: string | undefined;
    enabled?: boolean | undefined;
  }) {
    const afterId = opts.cursor ? String(decodeCursor(opts.cursor, 1)[0]) : undefined;
    const rows = await this.repo.list({ ...opts, afterId });
    return toPage(
      rows,
      opts.limit,
      (r) => this.out(r),
      (r) => [r.id],
    );
  }

  async get(id: string): Promise<IntegrationOutT> {
    return this.out(await this.getRow(id));
  }

  async getRow(id: string): Promise<IntegrationRow> {
    const row = await this.repo.byId(id);
    if (!row) throw new NotFoundError('Integration', id);
    return row;
  }

  async create(input: IntegrationCreateT): Promise<IntegrationOutT> {
    // Ownership first (a linked edge answers cloud-owned), before kind, duplicate or in-use checks.
    this.deps.changes.assertMayWrite('integration');
    const kind = kindOf(this.kinds(), input.kind, 'body.kind');
    const config = parseConfig(kind, input.config);
    await this.assertAddressesAllowed(config);
    await this.assertNameFree(input.name);
    const now = this.deps.clock.now();
    const row = await this.deps.changes.insert(this.deps.kysely, 'integration', {
      id: newId(),
      kind: kind.kind,
      name: input.name,
      config: JSON.stringify(config),
      enabled: input.enabled ? 1 : 0,
      createdAt: now,
      updatedAt: now,
    });
    return this.out(row);
  }

  async update(id: string, patch: IntegrationPatchT, expectedVersion?: number): Promise<IntegrationOutT> {
    this.deps.changes.assertMayWrite('integration');
    const current = await this.getRow(id);
    const kind = kindOf(this.kinds(), current.kind, 'kind');
    if (patch.name !== undefined) await this.assertNameFree(patch.name, id);
    let config: Record<string, unknown> | undefined;
    if (patch.config !== undefined) {
      const stored = JSON.parse(current.config) as Record<string, unknown>;
      config = parseConfig(kind, keepStoredSecrets(patch.config, stored, kind.secretFields));
      assertSecretsFollowAddresses(stored, patch.config, config, kind.secretFields);
      await this.assertAddressesAllowed(config);
    }
    const row = await this.deps.changes.update(
      this.deps.kysely,
      'integration',
      id,
      {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.enabled !== undefined ? { enabled: patch.enabled ? 1 : 0 } : {}),
        ...(config !== undefined ? { config: JSON.stringify(config) } : {}),
      },
      expectedVersion === undefined ? {} : { expectedVersion },
    );
    if (!row) throw new NotFoundError('Integration', id);
    return this.out(row);
  }

  async delete(id: string): Promise<void> {
    this.deps.changes.assertMayWrite('integration');
    await this.getRow(id);
    const cameras = await this.repo.cameraCount(id);
    if (cameras > 0) {
      throw new ConflictError(
        'in-use',
        `${cameras} yard camera(s) use this integration. De-register them first, or disable the integration (enabled: false).`,
        { cameras },
      );
    }
    await this.deps.changes.delete(this.deps.kysely, 'integration', id);
    this.live.forget(id);
  }

  /** The provider's cameras for one integration, with the yard cameras registered for each. */
  async providerCameras(id: string): Promise<ProviderCameraOutT[]> {
    return this.live.list(await this.getRow(id));
  }

  /** Every enabled integration's cameras a principal may see, and the integrations that failed (provider-cameras.ts). */
  allProviderCameras(
    principal: Principal,
  ): Promise<{ items: ProviderCameraOutT[]; failures: ProviderFailureOutT[] }> {
    return this.live.listAll(principal);
  }

  /**
   * A frame from a provider camera for a caller: with a yard scope, only of a provider camera
   * registered as a yard camera in one of its yards (else 404, as if there were none).
   */
  async snapshotFor(principal: Principal, integrationId: string, providerCameraId: string) {
    await this.live.assertVisible(principal, integrationId, providerCameraId);
    return this.snapshot(integrationId, providerCameraId);
  }

  /** A frame from a provider camera; a disabled integration is refused with 409. */
  async snapshot(integrationId: string, providerCameraId: string, timeoutMs?: number): Promise<Snapshot> {
    return this.live.snapshot(await this.getRow(integrationId), providerCameraId, timeoutMs);
  }

  timeoutMs(): Promise<number> {
    return this.live.timeoutMs();
  }

  /** The outbound address policy for cameras and providers, as the site setting says now. */
  devicePolicy(): Promise<OutboundPolicy> {
    return this.live.devicePolicy();
  }

  /** Every integration by name, without configs (for pickers that must not see secrets). */
  summaries(): Promise<IntegrationSummary[]> {
    return this.repo.summaries();
  }

  /** The integration by id without its config, or undefined. */
  async summary(id: string): Promise<IntegrationSummary | undefined> {
    const row = await this.repo.byId(id);
    return row && { id: row.id, name: row.name, kind: row.kind, enabled: row.enabled };
  }

  /** Every URL in the config must pass the outbound address policy (400 on its field). */
  private async assertAddressesAllowed(config: Record<string, unknown>): Promise<void> {
    const errors = await refusedAddresses(urlFields(config), 'body.config', await this.devicePolicy());
    if (errors.length > 0) throw new ValidationError(errors, 'An address is refused; nothing was stored.');
  }

  private async assertNameFree(name: string, exceptId?: string): Promise<void> {
    const existing = await this.repo.byName(name);
    if (existing && existing.id !== exceptId) {
      throw new ConflictError('duplicate', `An integration named ${existing.name} exists.`, {
        existingId: existing.id,
      });
    }
  }

  private out(row: IntegrationRow): IntegrationOutT {
    const secretFields = this.kinds().find((k) => k.kind === row.kind)?.secretFields ?? [];
    return {
      id: row.id,
      kind: row.kind,
      name: row.name,
      enabled: row.enabled === 1,
      config: maskSecrets(JSON.parse(row.config), secretFields),
      secretFields: [...secretFields],
      createdAt: toIso(row.createdAt),
      updatedAt: toIso(row.updatedAt),
      version: row.version,
    };
  }
}
