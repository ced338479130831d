import { canSeeYard, type Principal } from '../../auth/principal.js';
import { toIso } from '../../clock.js';
import {
  type AppointmentPlaceT,
  SEARCH_KINDS,
  type SearchHitT,
  type SearchKindT,
  type WhereaboutsT,
} from './schema.js';
import {
  appointmentSource,
  type Found,
  type SearchDeps,
  type SearchSource,
  unitAndPartySources,
} from './sources.js';

export type { Found, SearchDeps, SearchSource } from './sources.js';

const MATCH = { 3: 'exact', 2: 'prefix', 1: 'contains' } as const;

/**
 * The dashboard's "search everywhere" (docs/api.md "Search"): every source is asked for its best
 * `limit`, the answers are merged exact first, then prefix, then contains (kinds in SEARCH_KINDS
 * order within a match), and the kept ones get their carrier and, for units, where they are.
 */
export class SearchService {
  private readonly sources: SearchSource[];

  constructor(private readonly deps: SearchDeps) {
    this.sources = [...unitAndPartySources(deps), appointmentSource(deps)];
  }

  async search(
    principal: Principal,
    q: string,
    limit: number,
  ): Promise<{ items: SearchHitT[]; nextCursor: null }> {
    const found = (await Promise.all(this.sources.map((s) => s.find(principal, q, limit)))).flat();
    const order = (k: SearchKindT) => SEARCH_KINDS.indexOf(k);
    // Array.sort is stable: within a match and kind, each source's own order stays.
    const kept = found.sort((a, b) => b.rank - a.rank || order(a.kind) - order(b.kind)).slice(0, limit);
    const names = new Names(this.deps, principal);
    const places = await this.whereabouts(kept, names);
    const items = await Promise.all(
      kept.map(async (f) => ({
        kind: f.kind,
        id: f.id,
        label: f.label,
        secondary: f.secondary !== undefined ? f.secondary : await names.carrier(f.carrierId),
        match: MATCH[f.rank],
        where: places.get(f.id) ?? null,
        appointment: f.appointment ? await appointmentPlace(f.appointment, names) : null,
      })),
    );
    return { items, nextCursor: null };
  }

  /** Where each unit among the hits is: its record's yard and spot, its latest visit's times and gate. */
  private async whereabouts(found: Found[], names: Names): Promise<Map<string, WhereaboutsT>> {
    const out = new Map<string, WhereaboutsT>();
    for (const kind of ['trailer', 'truck'] as const) {
      const units = found.filter((f) => f.unit?.kind === kind);
      if (units.length === 0) continue;
      const visits = await this.deps.movements.latestVisits(
        kind,
        units.map((u) => u.id),
      );
      for (const f of units) {
        const unit = f.unit!;
        const visit = visits.get(f.id);
        if (unit.yardId !== null) {
          // The open visit's check-in; a unit placed without one (an older record) by its arrival.
          const inAt =
            visit && visit.outAt === null && visit.yardId === unit.yardId ? visit.inAt : unit.arrivedAt;
          out.set(f.id, {
            state: 'in-yard',
            yard: await names.yard(unit.yardId),
            location: unit.locationId ? await names.location(unit.yardId, unit.locationId) : null,
            since: inAt === null ? null : toIso(inAt),
            gate: null,
          });
        } else if (visit?.outAt != null) {
          const visible = names.maySee(visit.yardId);
          out.set(f.id, {
            state: 'left',
            yard: visible ? await names.yard(visit.yardId) : null,
            location: null,
            since: toIso(visit.outAt),
            gate: visible && visit.outGateId ? await names.gate(visit.yardId, visit.outGateId) : null,
          });
        } else if (visit) {
          // Out of every yard with its last visit still open: a truck that left without the trailer
          // it brought (its check-out closes no visit), so when it left is not known here.
          const visible = names.maySee(visit.yardId);
          out.set(f.id, {
            state: 'left',
            yard: visible ? await names.yard(visit.yardId) : null,
            location: null,
            since: null,
            gate: null,
          });
        } else {
          out.set(f.id, { state: 'not-arrived', yard: null, location: null, since: null, gate: null });
        }
      }
    }
    return out;
  }
}

async function appointmentPlace(
  { yardId, ...rest }: NonNullable<Found['appointment']>,
  names: Names,
): Promise<AppointmentPlaceT> {
  return { yard: (await names.yard(yardId)) ?? { id: yardId, name: '' }, ...rest };
}

/** Names looked up once per answer (a page of hits shares few yards, spots and carriers). */
class Names {
  private readonly cache = new Map<string, Promise<{ id: string; name: string } | null>>();

  constructor(
    private readonly deps: SearchDeps,
    private readonly principal: Principal,
  ) {}

  maySee(yardId: string): boolean {
    return canSeeYard(this.principal, yardId);
  }

  yard(id: string) {
    return this.once(`y${id}`, async () => ({ id, name: (await this.deps.yards.getRow(id)).name }));
  }

  location(yardId: string, id: string) {
    return this.once(`l${id}`, async () => ({
      id,
      name: (await this.deps.yards.getLocationRow(yardId, id)).name,
    }));
  }

  gate(yardId: string, id: string) {
    return this.once(`g${id}`, async () => ({
      id,
      name: (await this.deps.yards.getGateRow(yardId, id)).name,
    }));
  }

  /** "Prairie Freight (PRFT)". */
  async carrier(id: string | null): Promise<string | null> {
    if (id === null) return null;
    const c = await this.once(`c${id}`, async () => {
      const row = await this.deps.carriers.getRow(id);
      return { id, name: row.scac ? `${row.name} (${row.scac})` : row.name };
    });
    return c?.name ?? null;
  }

  /** A record gone meanwhile (a deleted spot) is named by nothing rather than failing the search. */
  private once(key: string, load: () => Promise<{ id: string; name: string }>) {
    let p = this.cache.get(key);
    if (!p) {
      p = load().catch(() => null);
      this.cache.set(key, p);
    }
    return p;
  }
}
