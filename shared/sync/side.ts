import type Database from 'better-sqlite3';
import { cloudRouting, edgeRouting, type Routing } from './routing.js';

/**
 * What differs between the two sides of sync, chosen once at start (shared/app.ts) from the role:
 * the engine calls these parts and never asks which role it runs in.
 */
export interface SyncSide {
  /** This side's HLC origin: its site id at an edge, 'cloud' at the cloud. */
  origin: string;
  /** Which peers' change logs get a row (routing.ts). */
  routing: Routing;
  /**
   * The owner whose rows this side takes as final when they come from it (apply-rules.ts): the
   * cloud takes edge-owned rows from their edge, an edge takes cloud-owned rows from the cloud.
   */
  finalFrom: 'edge' | 'cloud';
  /**
   * The cloud is the hub between sites: it checks what each site may write (site-trust.ts),
   * forwards a site's rows to the other sites that need them, and holds the attachment bytes sites
   * upload. An edge talks to the cloud only.
   */
  hub: boolean;
}

/** An edge: every row it logs goes to the cloud, whose word on cloud-owned rows is final. */
export function edgeSide(siteId: string): SyncSide {
  return { origin: siteId, routing: edgeRouting(), finalFrom: 'cloud', hub: false };
}

/** The cloud: routes each row to the sites that need it; the edges' word on their rows is final. */
export function cloudSide(sqlite: Database.Database): SyncSide {
  return { origin: 'cloud', routing: cloudRouting(sqlite), finalFrom: 'edge', hub: true };
}
