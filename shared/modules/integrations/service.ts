import { z } from 'zod';
import { canSeeYard, type Principal } from '../../auth/principal.js';
import type { CameraProvider, CameraProviderKind, Snapshot } from '../../cameras/types.js';
import { toIso } from '../../clock.js';
import type { Core } from '../../core.js';
import { decodeCursor, toPage } from '../../http/cursor.js';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { zodIssuesToFieldErrors } from '../../http/validation.js';
import { newId } from '../../ids.js';
import { ALLOW_LOCAL_SETTING, deviceAddressPolicy, type OutboundPolicy } from '../../net/outbound-policy.js';
import { cameraProblem } from '../cameras/camera-errors.js';
import { assertSecretsFollowAddresses, refusedAddresses, urlFields } from './addresses.js';
import { IntegrationRepo, type IntegrationRow } from './repo.js';
import type {
  IntegrationCreateT,
  IntegrationOutT,
  IntegrationPatchT,
  ProviderCameraOutT,
  ProviderFailureOutT,
} from './schema.js';
import { keepStoredSecrets, maskSecrets } from './secrets.js';

/**
 * Integrations with outside services (camera providers). Configs are validated by the kind's zod
 * schema; secrets are write-only. A live connection (with its cached token) is kept per integration
 * and replaced when the integration's version changes.
 */
export class IntegrationService {
  readonly repo: IntegrationRepo;
  private readonly connections = new Map<
    string,
    { version: number; policy: OutboundPolicy; provider: CameraProvider }
  >();

  constructor(private readonly core: Core) {
    this.repo = new IntegrationRepo(core.kysely);
  }

  kinds(): readonly CameraProviderKind[] {
    return this.core.cameras.providers;
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
    this.core.changes.assertMayWrite('integration');
    const kind = this.kindOf(input.kind, 'body.kind');
    const config = parseConfig(kind, input.config);
    await this.assertAddressesAllowed(config);
    await this.assertNameFree(input.name);
    const now = this.core.clock.now();
    const row = await this.core.changes.insert(this.core.kysely, 'integration', {
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
    this.core.changes.assertMayWrite('integration');
    const current = await this.getRow(id);
    const kind = this.kindOf(current.kind, 'kind');
    if (patch.name !== undefined) await this.assertNameFree(patch.name, id);
    let config: Record<string, unknown> | undefined;
    if (patch.config !== undefined) {
      const stored = JSON.parse(current.config) as Record<string, unknown>;
      config = parseConfig(kind, keepStoredSecrets(patch.config, stored, kind.secretFields));
      assertSecretsFollowAddresses(stored, patch.config, config, kind.secretFields);
      await this.assertAddressesAllowed(config);
    }
    const row = await this.core.changes.update(
      this.core.kysely,
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
    this.core.changes.assertMayWrite('integration');
    await this.getRow(id);
    const cameras = await this.repo.cameraCount(id);
    if (cameras > 0) {
      throw new ConflictError(
        'in-use',
        `${cameras} yard camera(s) use this integration. De-register them first, or disable the integration (enabled: false).`,
        { cameras },
      );
    }
    await this.core.changes.delete(this.core.kysely, 'integration', id);
    this.connections.delete(id);
  }

  /** The provider's cameras for one integration, with the yard cameras registered for each. */
  async providerCameras(id: string): Promise<ProviderCameraOutT[]> {
    const row = await this.getRow(id);
    const timeoutMs = await this.timeoutMs();
    let cameras: Awaited<ReturnType<CameraProvider['listCameras']>>;
    try {
      cameras = await (await this.provider(row)).listCameras({ timeoutMs });
    } catch (err) {
      throw cameraProblem(err, `Integration ${row.name}`);
    }
    const registered = await this.repo.registeredCameras(row.id);
    return cameras.map((c) => ({
      integrationId: row.id,
      integrationName: row.name,
      kind: row.kind,
      id: c.id,
      name: c.name,
      location: c.location,
      online: c.online,
      registeredCameraIds: registered.filter((r) => r.providerCameraId === c.id).map((r) => r.id),
    }));
  }

  /**
   * Every enabled integration's cameras; an integration that fails is reported, the rest still
   * listed. Provider cameras have a yard only through the yard cameras registered for them: a
   * principal with a yard scope gets the provider cameras registered in its yards (and only those
   * registrations), and only their integrations are asked; the rest are for principals who see
   * every yard.
   */
  async allProviderCameras(
    principal: Principal,
  ): Promise<{ items: ProviderCameraOutT[]; failures: ProviderFailureOutT[] }> {
    const rows = (await this.repo.enabled()).filter((r) => this.kinds().some((k) => k.kind === r.kind));
    const seen = await Promise.all(rows.map((r) => this.visibleRegistrations(r.id, principal)));
    const asked = rows.filter((_, i) => seen[i] === 'all' || seen[i]!.length > 0);
    const results = await Promise.allSettled(asked.map((r) => this.providerCameras(r.id)));
    const items: ProviderCameraOutT[] = [];
    const failures: ProviderFailureOutT[] = [];
    results.forEach((result, i) => {
      const row = asked[i]!;
      const visible = seen[rows.indexOf(row)]!;
      if (result.status === 'fulfilled') {
        for (const camera of result.value) {
          if (visible === 'all') items.push(camera);
          else {
            const registered = camera.registeredCameraIds.filter((id) => visible.some((r) => r.id === id));
            if (registered.length > 0) items.push({ ...camera, registeredCameraIds: registered });
          }
        }
      } else {
        const problem = cameraProblem(result.reason, `Integration ${row.name}`);
        failures.push({
          integrationId: row.id,
          integrationName: row.name,
          code: problem.code,
          detail: problem.detail,
        });
      }
    });
    return { items, failures };
  }

  /**
   * A frame from a provider camera for a caller: with a yard scope, only of a provider camera
   * registered as a yard camera in one of its yards (else 404, as if there were none).
   */
  async snapshotFor(principal: Principal, integrationId: string, providerCameraId: string) {
    const visible = await this.visibleRegistrations(integrationId, principal);
    if (visible !== 'all' && !visible.some((r) => r.providerCameraId === providerCameraId)) {
      throw new NotFoundError('Provider camera', providerCameraId);
    }
    return this.snapshot(integrationId, providerCameraId);
  }

  /** A frame from a provider camera; a disabled integration is refused with 409. */
  async snapshot(integrationId: string, providerCameraId: string, timeoutMs?: number): Promise<Snapshot> {
    const row = await this.getRow(integrationId);
    if (!row.enabled) {
      throw new ConflictError(
        'integration-disabled',
        `Integration ${row.name} is disabled; enable it to fetch frames.`,
      );
    }
    try {
      return await (await this.provider(row)).snapshot(providerCameraId, {
        timeoutMs: timeoutMs ?? (await this.timeoutMs()),
      });
    } catch (err) {
      throw cameraProblem(err, `Camera ${providerCameraId} of integration ${row.name}`);
    }
  }

  timeoutMs(): Promise<number> {
    return this.core.services.settings.get('camera.snapshotTimeoutMs');
  }

  /**
   * The addresses cameras and providers may be reached at (shared/net/outbound-policy.ts), with
   * the site setting read each time, so turning it off takes effect at once.
   */
  async devicePolicy(): Promise<OutboundPolicy> {
    const allow = await this.core.services.settings.get(ALLOW_LOCAL_SETTING);
    return deviceAddressPolicy({ allowLoopbackAndLinkLocal: allow });
  }

  /** The live connection for the integration's current version and the policy now in force. */
  private async provider(row: IntegrationRow): Promise<CameraProvider> {
    const policy = await this.devicePolicy();
    const cached = this.connections.get(row.id);
    if (cached && cached.version === row.version && cached.policy === policy) return cached.provider;
    const kind = this.kindOf(row.kind, 'kind');
    const provider = kind.connect(kind.configSchema.parse(JSON.parse(row.config)), {
      now: () => this.core.clock.now(),
      policy,
    });
    this.connections.set(row.id, { version: row.version, policy, provider });
    return provider;
  }

  /** 'all' for a principal who sees every yard, else this integration's yard cameras in its yards. */
  private async visibleRegistrations(integrationId: string, principal: Principal) {
    // An unregistered provider camera has no yard: canSeeYard(p, null) holds only for an unscoped principal.
    if (canSeeYard(principal, null)) return 'all' as const;
    const registered = await this.repo.registeredCameras(integrationId);
    return registered.filter((r) => canSeeYard(principal, r.yardId));
  }

  /** Every URL in the config must pass the outbound address policy (400 on its field). */
  private async assertAddressesAllowed(config: Record<string, unknown>): Promise<void> {
    const errors = await refusedAddresses(urlFields(config), 'body.config', await this.devicePolicy());
    if (errors.length > 0) throw new ValidationError(errors, 'An address is refused; nothing was stored.');
  }

  private kindOf(kind: string, path: string): CameraProviderKind {
    const found = this.kinds().find((k) => k.kind === kind);
    if (!found) {
      const known = this.kinds()
        .map((k) => k.kind)
        .join(', ');
      throw new ValidationError([
        { path, message: `unknown integration kind "${kind}"; known kinds: ${known}` },
      ]);
    }
    return found;
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

function parseConfig(kind: CameraProviderKind, config: Record<string, unknown>): Record<string, unknown> {
  const parsed = kind.configSchema.safeParse(config);
  if (!parsed.success) throw new ValidationError(zodIssuesToFieldErrors(parsed.error.issues, 'body.config'));
  return parsed.data as Record<string, unknown>;
}
