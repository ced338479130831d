import { availableParallelism } from 'node:os';
import type { Config } from './config.js';

/** standalone: an edge with no cloud (owns everything); linked: an edge with a cloud; cloud. */
export type SyncMode = 'standalone' | 'linked' | 'cloud';

/**
 * What differs between a standalone edge, a linked edge and the cloud, named by what it changes
 * (docs/architecture.md "One codebase, two roles"). Computed once from the configuration; the
 * composition root (shared/app.ts, shared/services.ts) plugs the part each value names, and the
 * modules only call the parts they are given. Values that are only reported (the status endpoint's
 * role and mode) are read from here; nothing else asks the configuration where it runs
 * (tools/role-choices.ts).
 */
export interface RoleProfile {
  readonly role: 'edge' | 'cloud';
  readonly syncMode: SyncMode;
  /**
   * Where billing lives (docs/domain.md "Billing"): here at the cloud and at a standalone edge; at
   * the cloud for a linked edge, whose billing routes answer 409 `cloud-owned`.
   */
  readonly billing: 'here' | 'at-cloud';
  /**
   * Where the integrators' side runs (webhook endpoints, their outbox and delivery; docs/webhooks.md):
   * here at the cloud and at a standalone edge, which is a complete product; at the cloud for a
   * linked edge, which registers no outbox and whose webhook routes answer 409 `cloud-owned`.
   */
  readonly integrators: 'here' | 'at-cloud';
  /**
   * Where the gates' relays are: wired to this box (an edge), or at the sites (the cloud, which
   * forwards an actuation to the edge of the gate's site and drives no relay itself).
   */
  readonly relays: 'local' | 'at-sites';
  /** ONVIF cameras: reached on this yard's LAN (an edge), or by the edge of their site (the cloud). */
  readonly onvif: 'on-lan' | 'through-site';
  /**
   * Attachment bytes this database lists but does not hold: none to fetch (a standalone edge holds
   * all its own), fetched from the cloud (a linked edge), or awaited from the site that stored them
   * (the cloud, which also serves the sites' uploads).
   */
  readonly attachmentBytes: 'held-here' | 'from-cloud' | 'from-sites';
  /**
   * Where drivers work: at an edge queued tasks are dispatched to them and their sessions expire
   * here; the cloud has no drivers (their sessions and heartbeats live at the edges).
   */
  readonly drivers: 'here' | 'at-edges';
  /**
   * Worker threads for the heavy reads (config readWorkers, else defaultReadWorkers for the role).
   */
  readonly readWorkers: number;
}

export function roleProfile(config: Config): RoleProfile {
  const mode = syncModeOf(config);
  const cloud = mode === 'cloud';
  return Object.freeze({
    role: config.role,
    syncMode: mode,
    billing: mode === 'linked' ? 'at-cloud' : 'here',
    integrators: mode === 'linked' ? 'at-cloud' : 'here',
    relays: cloud ? 'at-sites' : 'local',
    onvif: cloud ? 'through-site' : 'on-lan',
    attachmentBytes: cloud ? 'from-sites' : mode === 'linked' ? 'from-cloud' : 'held-here',
    drivers: cloud ? 'at-edges' : 'here',
    readWorkers: config.readWorkers ?? defaultReadWorkers(config.role),
  });
}

/** An edge with an MQTT url is linked to a cloud; without one it is standalone (config mqtt.url). */
function syncModeOf(config: Config): SyncMode {
  if (config.role === 'cloud') return 'cloud';
  return config.mqtt.url ? 'linked' : 'standalone';
}

/**
 * How many read workers by default. An edge (one yard, a small box whose gates must answer at once):
 * one, so a figure never holds up a gate request. The cloud: one per core beyond the main thread,
 * at least one and at most four (reads of rollups are short; more threads than cores only queue).
 */
export function defaultReadWorkers(role: 'edge' | 'cloud', cores = availableParallelism()): number {
  return role === 'edge' ? 1 : Math.max(1, Math.min(4, cores - 1));
}
