import { canSeeYard, type Principal } from '../../auth/principal.js';
import type { CameraProvider, Snapshot } from '../../cameras/types.js';
import type { CoreParts } from '../../core-parts.js';
import { ConflictError, NotFoundError } from '../../http/errors.js';
import { ALLOW_LOCAL_SETTING, deviceAddressPolicy, type OutboundPolicy } from '../../net/outbound-policy.js';
import { cameraProblem } from '../cameras/camera-errors.js';
import type { SettingsService } from '../settings/service.js';
import { kindOf } from './kinds.js';
import type { IntegrationRepo, IntegrationRow } from './repo.js';
import type { ProviderCameraOutT, ProviderFailureOutT } from './schema.js';

export type ProviderCameraDeps = Pick<CoreParts, 'clock' | 'cameras'> & {
  repo: IntegrationRepo;
  /** `camera.snapshotTimeoutMs` and the outbound address setting. */
  settings: Pick<SettingsService, 'get'>;
};

/**
 * The live side of integrations: the providers' own cameras and their pictures, asked each time.
 * A connection (with its cached token) is kept per integration and replaced when the integration's
 * version or the outbound address policy changes.
 */
export class ProviderCameras {
  private readonly connections = new Map<
    string,
    { version: number; policy: OutboundPolicy; provider: CameraProvider }
  >();

  constructor(private readonly deps: ProviderCameraDeps) {}

  /** The provider's cameras for one integration, with the yard cameras registered for each. */
  async list(row: IntegrationRow): Promise<ProviderCameraOutT[]> {
    const timeoutMs = await this.timeoutMs();
    let cameras: Awaited<ReturnType<CameraProvider['listCameras']>>;
    try {
      cameras = await (await this.provider(row)).listCameras({ timeoutMs });
    } catch (err) {
      throw cameraProblem(err, `Integration ${row.name}`);
    }
    const registered = await this.deps.repo.registeredCameras(row.id);
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
  async listAll(
    principal: Principal,
  ): Promise<{ items: ProviderCameraOutT[]; failures: ProviderFailureOutT[] }> {
    const kinds = this.deps.cameras.providers;
    const rows = (await this.deps.repo.enabled()).filter((r) => kinds.some((k) => k.kind === r.kind));
    const seen = await Promise.all(rows.map((r) => this.visibleRegistrations(r.id, principal)));
    const asked = rows.filter((_, i) => seen[i] === 'all' || seen[i]!.length > 0);
    const results = await Promise.allSettled(asked.map((r) => this.list(r)));
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

  /** 404 unless the principal sees every yard or a yard camera of one of its yards is registered for it. */
  async assertVisible(principal: Principal, integrationId: string, providerCameraId: string): Promise<void> {
    const visible = await this.visibleRegistrations(integrationId, principal);
    if (visible !== 'all' && !visible.some((r) => r.providerCameraId === providerCameraId)) {
      throw new NotFoundError('Provider camera', providerCameraId);
    }
  }

  /** A frame from a provider camera; a disabled integration is refused with 409. */
  async snapshot(row: IntegrationRow, providerCameraId: string, timeoutMs?: number): Promise<Snapshot> {
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
    return this.deps.settings.get('camera.snapshotTimeoutMs');
  }

  /**
   * The addresses cameras and providers may be reached at (shared/net/outbound-policy.ts), with
   * the site setting read each time, so turning it off takes effect at once.
   */
  async devicePolicy(): Promise<OutboundPolicy> {
    const allow = await this.deps.settings.get(ALLOW_LOCAL_SETTING);
    return deviceAddressPolicy({ allowLoopbackAndLinkLocal: allow });
  }

  /** Drops the connection of a deleted integration. */
  forget(integrationId: string): void {
    this.connections.delete(integrationId);
  }

  /** The live connection for the integration's current version and the policy now in force. */
  private async provider(row: IntegrationRow): Promise<CameraProvider> {
    const policy = await this.devicePolicy();
    const cached = this.connections.get(row.id);
    if (cached && cached.version === row.version && cached.policy === policy) return cached.provider;
    const kind = kindOf(this.deps.cameras.providers, row.kind, 'kind');
    const provider = kind.connect(kind.configSchema.parse(JSON.parse(row.config)), {
      now: () => this.deps.clock.now(),
      policy,
    });
    this.connections.set(row.id, { version: row.version, policy, provider });
    return provider;
  }

  /** 'all' for a principal who sees every yard, else this integration's yard cameras in its yards. */
  private async visibleRegistrations(integrationId: string, principal: Principal) {
    // An unregistered provider camera has no yard: canSeeYard(p, null) holds only for an unscoped principal.
    if (canSeeYard(principal, null)) return 'all' as const;
    const registered = await this.deps.repo.registeredCameras(integrationId);
    return registered.filter((r) => canSeeYard(principal, r.yardId));
  }
}
