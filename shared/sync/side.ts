import type { AppDatabase } from '../db/database.js';
import type { PeersFor } from './change-log-writer.js';
import { cloudRouting, edgeRouting, type Routing, type RoutingWork, routingWork } from './routing.js';
import { PostgresCloudRouting, uncachedCloudRouting } from './routing-postgres.js';

/**
 * What differs between the two sides of sync, chosen once at start (shared/app.ts) from the role:
 * the engine calls these parts and never asks which role it runs in.
 */
export interface SyncSide {
  /** This side's HLC origin: its site id at an edge, 'cloud' at the cloud. */
  origin: string;
  /**
   * Which peers' change logs get a row (routing.ts), asked by ChangeCapture inside the write's
   * transaction: synchronous on SQLite, awaited on PostgreSQL (routing-postgres.ts).
   */
  peersFor: PeersFor;
  /**
   * The same routing, answered synchronously on SQLite's connection, for the SQLite sync applier
   * (it cannot await inside its transaction). On PostgreSQL it refuses: use `routingWork`.
   */
  routing: Routing;
  /**
   * The same routing as SqlWork, for the sync applier on either database: on SQLite the cached
   * `routing` above; on PostgreSQL read through the work's own transaction.
   */
  routingWork: RoutingWork;
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
  const routing = edgeRouting();
  return {
    origin: siteId,
    peersFor: (entity, row, _trx, write) => routing.routes(entity, row, write),
    routing,
    routingWork: routingWork(routing),
    finalFrom: 'cloud',
    hub: false,
  };
}

/** The cloud: routes each row to the sites that need it; the edges' word on their rows is final. */
export function cloudSide(db: AppDatabase): SyncSide {
  const side = { origin: 'cloud', finalFrom: 'edge', hub: true } as const;
  if (db.dialect === 'sqlite') {
    const routing = cloudRouting(db.sqlite);
    return {
      ...side,
      routing,
      routingWork: routingWork(routing),
      peersFor: (entity, row, _trx, write) => routing.routes(entity, row, write),
    };
  }
  const postgres = new PostgresCloudRouting();
  return {
    ...side,
    peersFor: (entity, row, trx, write) => postgres.peersFor(entity, row, trx, write),
    routingWork: uncachedCloudRouting(),
    routing: {
      routes: () => {
        throw new Error('synchronous routing runs on SQLite only: on PostgreSQL use SyncSide.peersFor');
      },
      peersFor: () => {
        throw new Error('synchronous routing runs on SQLite only: on PostgreSQL use SyncSide.peersFor');
      },
      siteOfYard: () => {
        throw new Error('synchronous routing runs on SQLite only: on PostgreSQL use SyncSide.peersFor');
      },
      invalidate: () => {},
    },
  };
}
