import type Database from 'better-sqlite3';
import { once, SqliteWork, type SqlWork, sqlRows, sqlValue, statement } from '../db/sql-work.js';
import type { SyncedEntity } from './entities.js';
import { isUnit, NEW_ROW, type Route, routeUnit, type WriteContext } from './unit-shares.js';

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

/**
 * The cloud's routing read through the work's statements (PostgreSQL), kept for one transaction
 * only (`once`): with several cloud nodes, a site or yard registered through one node must route
 * the very next write on any other, so nothing outlives the transaction; within it, the sites and
 * the yards' sites are read once for all the rows of a batch instead of once per row. With the
 * trust check's session lookups kept the same way, the fault suite's week offline (21,652 rows)
 * drains into a cloud on PostgreSQL in 6.6-7.3 s instead of 12.6 s.
 */
export function uncachedCloudRouting(): RoutingWork {
  return {
    *routes(entity, row, write = NEW_ROW) {
      const sites = yield* once('routing|sites', function* () {
        return (yield* sqlRows(READ_SITES, [])).map((r) => String(r.id));
      });
      const siteOfYard = yield* once('routing|yards', function* () {
        const yards = yield* sqlRows(READ_YARDS, []);
        return new Map(yards.map((y) => [String(y.id), y.site_id as string | null]));
      });
      const lookups = yield* lookupsFor(entity, row);
      return routeAtCloud(
        entity,
        row,
        sites,
        (yardId) => siteOfYard.get(yardId) ?? undefined,
        lookups,
        write,
      );
    },
    *siteOfYard(yardId) {
      const site = yield* once(`routing|site-of-yard|${yardId}`, () => sqlValue(READ_SITE_OF_YARD, [yardId]));
      return typeof site === 'string' ? site : undefined;
    },
  };
}

const READ_STAMP = statement('routing|stamp', 'value', 'SELECT n FROM temp.yard_routing_stamp');
const READ_SITES = statement('routing|sites', 'rows', 'SELECT id FROM site ORDER BY id');
const READ_YARDS = statement('routing|yards', 'rows', 'SELECT id, site_id FROM yard');
const READ_SITE_OF_YARD = statement('routing|site-of-yard', 'value', 'SELECT site_id FROM yard WHERE id = ?');
const READ_SESSION_YARD = statement(
  'routing|session-yard',
  'value',
  'SELECT yard_id FROM driver_session WHERE id = ?',
);
const READ_INTEGRATION_YARDS = statement(
  'routing|integration-yards',
  'rows',
  'SELECT DISTINCT yard_id FROM camera WHERE integration_id = ?',
);
const READ_REF_YARD: Record<string, ReturnType<typeof statement>> = Object.fromEntries(
  ['movement', 'truck_inspection', 'camera'].map((table) => [
    table,
    statement(`routing|ref-yard|${table}`, 'value', `SELECT yard_id FROM "${table}" WHERE id = ?`),
  ]),
);

function* yardOfSession(sessionId: string): SqlWork<string | undefined> {
  // A session's pings come by the hundred in a batch; its yard never changes.
  return yield* once(
    `routing|session-yard|${sessionId}`,
    function* () {
      const yardId = yield* sqlValue(READ_SESSION_YARD, [sessionId]);
      return typeof yardId === 'string' ? yardId : undefined;
    },
    (yardId) => yardId !== undefined,
  );
}

function* yardsUsingIntegration(integrationId: string): SqlWork<string[]> {
  const rows = yield* sqlRows(READ_INTEGRATION_YARDS, [integrationId]);
  return rows.flatMap((r) => (typeof r.yard_id === 'string' ? [r.yard_id] : []));
}

function* yardOfRef(table: string, id: string): SqlWork<string | undefined> {
  const stmt = READ_REF_YARD[table];
  if (!stmt) return undefined;
  const yardId = yield* sqlValue(stmt, [id]);
  return typeof yardId === 'string' ? yardId : undefined;
}

/**
 * The one row lookup routeAtCloud may ask for this row, read beforehand (it asks synchronously):
 * a session's yard, the yard of what an attachment is attached to, the yards using an integration.
 */
function* lookupsFor(entity: SyncedEntity, row: Record<string, unknown>): SqlWork<RowLookups> {
  let sessionYard: string | undefined;
  let refYard: string | undefined;
  let integrationYards: string[] = [];
  if (entity.entity === 'session_location' && typeof row.sessionId === 'string') {
    sessionYard = yield* yardOfSession(row.sessionId);
  } else if (
    entity.entity === 'attachment' &&
    typeof row.refType === 'string' &&
    typeof row.refId === 'string'
  ) {
    const table = YARD_REFS[row.refType];
    if (table) refYard = yield* yardOfRef(table, row.refId);
  } else if (entity.entity === 'integration' && typeof row.id === 'string') {
    integrationYards = yield* yardsUsingIntegration(row.id);
  }
  return {
    yardOfSession: () => sessionYard,
    yardOfRef: () => refYard,
    yardsUsingIntegration: () => integrationYards,
  };
}

/** Every site that needs a row: org-wide master data (units: unit-shares.ts). */
const ORG_WIDE = new Set(['carrier', 'driver']);

/** Records with a yard scope (`yardIds`, JSON or null = every yard): only the sites they cover. */
const SCOPED = new Set(['user', 'api_key']);

/** Attachment ref types whose target has a yard (the others are org-wide records). */
const YARD_REFS: Record<string, string> = {
  movement: 'movement',
  inspection: 'truck_inspection',
  camera: 'camera',
};

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
 * what it needs from a snapshot (writeSiteSnapshot).
 *
 * Lookups are synchronous better-sqlite3 reads on the same connection (they see the caller's open
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

export interface RowLookups {
  yardOfSession(sessionId: string): string | undefined;
  /** Yards with a camera that uses this integration. */
  yardsUsingIntegration(integrationId: string): string[];
  /** yard_id of the row with this id in `table`. */
  yardOfRef(table: string, id: string): string | undefined;
}

/**
 * The cloud's routing rule for one row, given the registered sites and lookups (see cloudRouting):
 * the peers that get it and what each gets of it (unit-shares.ts: a truck or trailer in another
 * site's yard reaches the other sites as its identity only, and only when that changed). `write`:
 * the write the row comes from (default: a row new to every peer, as in a snapshot); a site's change
 * applied here (`write.from`) goes back to that site only as unit-shares.ts says.
 */
export function routeAtCloud(
  entity: SyncedEntity,
  row: Record<string, unknown>,
  sites: readonly string[],
  siteOfYard: (yardId: string) => string | undefined,
  lookups: RowLookups,
  write: WriteContext = NEW_ROW,
): Route[] {
  const from = write.from;
  if (isUnit(entity)) {
    const siteOf = (yardId: unknown) =>
      typeof yardId === 'string' ? registeredSite(siteOfYard(yardId), sites) : undefined;
    const routes = routeUnit(entity, row, write, sites, siteOf);
    // The sender holds what it sent; it gets the merged row back only when the merge added what it
    // never received (its copy of a unit that stood elsewhere) and the unit is now its own.
    return from ? routes.filter((r) => r.peer !== from.site || (from.combined && r.share === 'row')) : routes;
  }
  const peers = peersAtCloud(entity, row, sites, siteOfYard, lookups);
  return (from ? peers.filter((p) => p !== from.site) : peers).map((peer) => ({ peer, share: 'row' }));
}

function registeredSite(site: string | undefined, sites: readonly string[]): string | undefined {
  return site !== undefined && sites.includes(site) ? site : undefined;
}

/** The sites that get the whole row, for every record but units. */
function peersAtCloud(
  entity: SyncedEntity,
  row: Record<string, unknown>,
  sites: readonly string[],
  siteOfYard: (yardId: string) => string | undefined,
  lookups: RowLookups,
): string[] {
  const toYardSite = (yardId: unknown): string[] => {
    if (typeof yardId !== 'string') return [];
    const site = registeredSite(siteOfYard(yardId), sites);
    return site !== undefined ? [site] : [];
  };
  switch (entity.entity) {
    case 'setting':
      return row.scope === 'site' ? [] : [...sites];
    case 'yard':
      return typeof row.siteId === 'string' && sites.includes(row.siteId) ? [row.siteId] : [];
    case 'session_location':
      return typeof row.sessionId === 'string' ? toYardSite(lookups.yardOfSession(row.sessionId)) : [];
    case 'attachment': {
      const refType = typeof row.refType === 'string' ? row.refType : undefined;
      const refId = typeof row.refId === 'string' ? row.refId : undefined;
      if (refType && refId && refType === 'yard') return toYardSite(refId);
      const table = refType ? YARD_REFS[refType] : undefined;
      const yardId = table && refId ? lookups.yardOfRef(table, refId) : undefined;
      // Not derivable (no ref, an org-wide ref, or the target has not arrived): every site.
      return yardId ? toYardSite(yardId) : [...sites];
    }
  }
  if (ORG_WIDE.has(entity.entity)) return [...sites];
  if (SCOPED.has(entity.entity)) return scopedSites(row.yardIds, sites, siteOfYard);
  if (entity.entity === 'integration') {
    // Its secrets go only to the sites with a camera that uses it (a new camera brings it along:
    // entities.ts NEEDS).
    const id = typeof row.id === 'string' ? row.id : '';
    return [...new Set(lookups.yardsUsingIntegration(id).flatMap(toYardSite))];
  }
  if (entity.entity === 'push_token') return [];
  return toYardSite(row.yardId);
}

/**
 * The sites a yard scope covers: every site for an unscoped user or key (null), else the sites of
 * its yards. A password hash or key hash goes only where it can be used to log in (docs/sync.md "Trust").
 * An unreadable scope goes nowhere.
 */
function scopedSites(
  yardIds: unknown,
  sites: readonly string[],
  siteOfYard: (yardId: string) => string | undefined,
): string[] {
  if (yardIds === null || yardIds === undefined) return [...sites];
  let ids: unknown;
  try {
    ids = typeof yardIds === 'string' ? JSON.parse(yardIds) : yardIds;
  } catch {
    return [];
  }
  if (!Array.isArray(ids)) return [];
  const covered = new Set<string>();
  for (const id of ids) {
    const site = typeof id === 'string' ? siteOfYard(id) : undefined;
    if (site !== undefined && sites.includes(site)) covered.add(site);
  }
  return [...covered];
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
