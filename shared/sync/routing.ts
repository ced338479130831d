import type Database from 'better-sqlite3';
import { SqliteWork, type SqlWork, sqlRows, sqlValue } from '../db/sql-work.js';
import { type RowLookups, routeAtCloud } from './cloud-routing-rule.js';
import type { SyncedEntity } from './entities.js';
import {
  READ_SITES,
  READ_STAMP,
  READ_YARDS,
  yardOfRef,
  yardOfSession,
  yardsUsingIntegration,
} from './routing-lookups.js';
import { NEW_ROW, type Route, type WriteContext } from './unit-shares.js';

export type { Route, Share, WriteContext } from './unit-shares.js';

export interface Routing {
  /** The peers whose change log gets this row, and what each gets of it (ChangeCapture's peersFor). */
  routes(entity: SyncedEntity, row: Record<string, unknown>, write?: WriteContext): Route[];
  /** The peers that get any of a row as written anew (whether a site may see an attachment). */
  peersFor(entity: SyncedEntity, row: Record<string, unknown>): string[];
  /** The site a yard belongs to (at the cloud; undefined at an edge or for an unknown yard). */
  siteOfYard(yardId: string): string | undefined;
  /** Drops the cached sites and yard -> site map (they also reload by themselves, see below). */
  invalidate(): void;
}

/**
 * The same routing as SqlWork, for work written once for both databases (the sync applier): its
 * lookups are statements of the work's own transaction.
 */
export interface RoutingWork {
  routes(entity: SyncedEntity, row: Record<string, unknown>, write?: WriteContext): SqlWork<Route[]>;
  siteOfYard(yardId: string): SqlWork<string | undefined>;
}

/**
 * A synchronous Routing (SQLite: cached, read on the applier's own connection) as RoutingWork: its
 * answers need no statement of the work.
 */
export function routingWork(routing: Routing): RoutingWork {
  return {
    // biome-ignore lint/correctness/useYield: answered from the cache or read on the same connection
    *routes(entity, row, write) {
      return routing.routes(entity, row, write);
    },
    // biome-ignore lint/correctness/useYield: as above
    *siteOfYard(yardId) {
      return routing.siteOfYard(yardId);
    },
  };
}

/** Bound on the session -> yard cache (a session's yard never changes). */
const SESSION_CACHE_MAX = 50_000;

/**
 * Which peers need a row, for the change log (docs/sync.md "Principles": the edge writes one log, the cloud one per site).
 *
 * Edge: every row goes to the cloud, site-scoped settings included: the cloud stores what
 * an edge sends, and the log stays a complete record of the edge's writes. The cloud's `setting`
 * table is keyed by name only, though, so it cannot hold one value per site: its applier ignores
 * site settings (apply-rules.ts), and each site's own values stay at its edge.
 *
 * Cloud: the sites that need the row. A row with a yard goes to the site of that yard; a yard to
 * its own site; a session location to the site of its session's yard; an attachment to the site of
 * the yard of what it is attached to (movement, inspection, camera, yard), else to every site.
 * Org-wide rows (users, API keys, carriers, drivers, integrations, global settings) go to every
 * registered site. Trucks and trailers ("units") go by relevance (unit-shares.ts routeUnit): every
 * site must recognise a unit at its gate, so each gets its identity when it is made or its identity
 * changes; only the site whose yard it stands in gets its whereabouts and load (the others could
 * not even store them: they lack that yard and its spots), the site it left learns that it left,
 * and a unit in no yard is everyone's. At 200 sites this is the difference between ~200 log rows
 * per gate movement and ~1 (test/bench/routing-fanout.ts). Push tokens go nowhere: a driver's phone registers at the site it works at, whose
 * edge sends the pushes; the cloud keeps the copies it receives. Only sites in the `site` table get rows: a site registered later gets
 * what it needs from a snapshot (writeSiteSnapshot). The rule is cloud-routing-rule.ts, its reads
 * routing-lookups.ts; on PostgreSQL they run in the write's transaction (routing-postgres.ts).
 *
 * Here on SQLite, lookups are synchronous better-sqlite3 reads on the same connection (they see the caller's open
 * transaction), with the site list and the yard -> site map cached. The cache stays right without
 * callers having to invalidate: temporary triggers (this connection only, never in the database
 * file) stamp a random number into a temporary table on every write to `site` or to a yard's site.
 * The stamp is part of the transaction, so a rolled-back write restores the old stamp and the cache
 * (loaded inside that transaction, under the new stamp) reloads.
 */
export function edgeRouting(): Routing {
  return {
    routes: () => [{ peer: 'cloud', share: 'row' }],
    peersFor: () => ['cloud'],
    siteOfYard: () => undefined,
    invalidate: () => {},
  };
}

/** The cloud's routing (see above): each row to the registered sites that need it. */
export function cloudRouting(sqlite: Database.Database): Routing {
  const cloud = new CloudRouting(sqlite);
  // Bound functions: ChangeCapture receives peersFor on its own.
  return {
    routes: (entity, row, write) => cloud.routes(entity, row, write),
    peersFor: (entity, row) => cloud.routes(entity, row).map((r) => r.peer),
    siteOfYard: (yardId) => cloud.siteOf(yardId),
    invalidate: () => cloud.invalidate(),
  };
}

class CloudRouting {
  private sites: string[] = [];
  private siteOfYard = new Map<string, string>();
  private readonly yardOfSession = new Map<string, string>();
  private stamp: number | undefined;
  /** The lookups' statements (the ones PostgreSQL runs in the work), run here synchronously. */
  private readonly work: SqliteWork;

  constructor(sqlite: Database.Database) {
    installStamp(sqlite);
    this.work = new SqliteWork(sqlite);
  }

  routes(entity: SyncedEntity, row: Record<string, unknown>, write: WriteContext = NEW_ROW): Route[] {
    this.refresh();
    return routeAtCloud(
      entity,
      row,
      this.sites,
      (yardId) => this.siteOfYard.get(yardId),
      this.lookups,
      write,
    );
  }

  siteOf(yardId: string): string | undefined {
    this.refresh();
    return this.siteOfYard.get(yardId);
  }

  invalidate(): void {
    this.stamp = undefined;
  }

  private readonly lookups: RowLookups = {
    yardOfSession: (sessionId) => {
      let yardId = this.yardOfSession.get(sessionId);
      if (yardId === undefined) {
        yardId = this.work.run(yardOfSession(sessionId));
        if (yardId === undefined) return undefined;
        if (this.yardOfSession.size >= SESSION_CACHE_MAX) this.yardOfSession.clear();
        this.yardOfSession.set(sessionId, yardId);
      }
      return yardId;
    },
    yardsUsingIntegration: (integrationId) => this.work.run(yardsUsingIntegration(integrationId)),
    yardOfRef: (table, id) => this.work.run(yardOfRef(table, id)),
  };

  private refresh(): void {
    const stamp = this.work.run(sqlValue(READ_STAMP, [])) as number;
    if (stamp === this.stamp) return;
    this.sites = this.work.run(sqlRows(READ_SITES, [])).map((r) => String(r.id));
    const yards = this.work.run(sqlRows(READ_YARDS, []));
    this.siteOfYard = new Map(yards.map((y) => [String(y.id), y.site_id as string]));
    this.stamp = stamp;
  }
}

/** The temporary stamp table and triggers of the routing cache (idempotent per connection). */
function installStamp(sqlite: Database.Database): void {
  sqlite.exec(`
    CREATE TEMP TABLE IF NOT EXISTS yard_routing_stamp (n INTEGER NOT NULL);
    INSERT INTO temp.yard_routing_stamp (n) SELECT abs(random() % 9007199254740991) WHERE NOT EXISTS (SELECT 1 FROM temp.yard_routing_stamp);
    CREATE TEMP TRIGGER IF NOT EXISTS yard_routing_site_ins AFTER INSERT ON main.site
      BEGIN UPDATE temp.yard_routing_stamp SET n = abs(random() % 9007199254740991); END;
    CREATE TEMP TRIGGER IF NOT EXISTS yard_routing_site_del AFTER DELETE ON main.site
      BEGIN UPDATE temp.yard_routing_stamp SET n = abs(random() % 9007199254740991); END;
    CREATE TEMP TRIGGER IF NOT EXISTS yard_routing_yard_ins AFTER INSERT ON main.yard
      BEGIN UPDATE temp.yard_routing_stamp SET n = abs(random() % 9007199254740991); END;
    CREATE TEMP TRIGGER IF NOT EXISTS yard_routing_yard_del AFTER DELETE ON main.yard
      BEGIN UPDATE temp.yard_routing_stamp SET n = abs(random() % 9007199254740991); END;
    CREATE TEMP TRIGGER IF NOT EXISTS yard_routing_yard_upd AFTER UPDATE OF id, site_id ON main.yard
      BEGIN UPDATE temp.yard_routing_stamp SET n = abs(random() % 9007199254740991); END;
  `);
}
