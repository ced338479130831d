import { JobLease } from './db/job-lease.js';
import { newId } from './ids.js';
import { nothingToFetch } from './modules/attachments/missing-bytes.js';
import { billingAtCloud, billingHere } from './modules/billing/index.js';
import { noSiteWait, SiteSyncCheck } from './modules/billing/invoice/waiting.js';
import { onvifOnLan, onvifThroughSite } from './modules/cameras/onvif-reach.js';
import { emailAtCloud, emailHere } from './modules/email/index.js';
import { ForwardToSite } from './modules/hardware/forward-to-site.js';
import { LocalRelays } from './modules/hardware/local-relays.js';
import { awaitSiteUpload, BlobFetcher } from './modules/sync/blob-fetch.js';
import { SyncBlobService } from './modules/sync/blob-service.js';
import { webhooksAtCloud, webhooksHere } from './modules/webhooks/index.js';
import type { RoleProfile } from './role-profile.js';
import type { RolePlugs } from './services.js';

/** How long the email sender's lease lasts unrenewed (the sender renews it every few seconds). */
const EMAIL_LEASE_TTL_MS = 15_000;

/**
 * The parts that differ by role, each chosen from what the profile names (docs/architecture.md
 * "One codebase, two roles"): the cloud forwards actuations and ONVIF calls to the edge of the
 * site, awaits attachment bytes from the sites and serves their uploads; a linked edge fetches
 * missing bytes from the cloud and leaves billing to it; an edge drives its relays, reaches its cameras and dispatches tasks.
 */
export function rolePlugs(profile: RoleProfile): RolePlugs {
  const bytes = profile.attachmentBytes;
  return {
    missingBytes: (deps) =>
      bytes === 'from-cloud'
        ? new BlobFetcher(deps)
        : bytes === 'from-sites'
          ? awaitSiteUpload
          : nothingToFetch,
    siteBytes: (deps) => (bytes === 'from-sites' ? new SyncBlobService(deps) : undefined),
    onvifReach: (deps) => (profile.onvif === 'through-site' ? onvifThroughSite(deps.runAtSite) : onvifOnLan),
    relays: (deps) => (profile.relays === 'at-sites' ? new ForwardToSite(deps) : new LocalRelays(deps)),
    autoDispatch: profile.drivers === 'here',
    // Arrivals are known at the edge (docs/domain.md "Appointments"); the cloud shows overdue ones instead.
    noShowSweep: profile.role === 'edge',
    appointmentsAtCloud: profile.role === 'cloud',
    // Carrier users live where the integrators' side runs; a linked edge never holds one.
    carrierPortalHere: profile.integrators === 'here',
    // The cloud waits for a yard's site to report before invoicing its past period; a standalone
    // edge holds all its own activity (docs/domain.md "Billing").
    billing: (deps) =>
      profile.billing === 'here'
        ? billingHere({
            ...deps,
            siteWait: profile.syncMode === 'cloud' ? new SiteSyncCheck(deps.kysely) : noSiteWait,
          })
        : billingAtCloud(),
    // Email to carriers goes where the integrators' side runs; one node of the cloud sends (the lease).
    email: (deps) =>
      profile.integrators === 'here'
        ? emailHere({
            ...deps,
            lease: new JobLease({
              kysely: deps.kysely,
              clock: deps.clock,
              name: 'email-sender',
              owner: newId(),
              ttlMs: EMAIL_LEASE_TTL_MS,
            }),
          })
        : emailAtCloud(),
    // Webhooks run where carriers' and integrators' records live (docs/webhooks.md): not at a linked edge.
    webhooks: (deps) => (profile.integrators === 'here' ? webhooksHere(deps) : webhooksAtCloud()),
  };
}
