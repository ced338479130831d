import { DateTime } from 'luxon';
import { assertCanSeeYard, type Principal } from '../../auth/principal.js';
import { toIso } from '../../clock.js';
import type { CoreParts } from '../../core-parts.js';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import type { SettingsService } from '../settings/service.js';
import { checkRange, coarsestGrain, DEFAULT_RANGE, lastAtOrBefore } from './buckets.js';
import { openTaskCounts, type YardOverviewOutT } from './overview.js';
import { DashboardRepo, TRAILER_FIGURES, TRUCK_FIGURES } from './repo.js';
import { EVERY_YARD, EVERY_YARD_GRAINS, FIGURE, NO_CARRIER, YARD_GRAINS } from './rollups/rules.js';
import type {
  ErrorFiguresOutT,
  MovementFiguresOutT,
  MovementFiguresQueryT,
  TrailerFiguresOutT,
  TruckFiguresOutT,
  YardMovementOutT,
  YardMovementQueryT,
} from './schema.js';

type Yard = Awaited<ReturnType<DashboardRepo['yards']>>[number];

export type DashboardDeps = Pick<CoreParts, 'reads' | 'clock' | 'errorStats'> & {
  settings: SettingsService;
};

export class DashboardService {
  private readonly repo: DashboardRepo;

  constructor(private readonly deps: DashboardDeps) {
    // Every figure read runs in the read pool, off the event loop (a statement-level snapshot each).
    this.repo = new DashboardRepo(deps.reads.kysely);
  }

  /**
   * In/out counts per hour or day. With a yard, buckets follow the yard's time zone (a DST day
   * has 23 or 25 hours); across yards they are UTC. Bounds widen to whole buckets.
   */
  async movements(query: MovementFiguresQueryT, principal: Principal): Promise<MovementFiguresOutT> {
    const [yard] = query.yardId ? await this.yardsInView(principal, query.yardId) : [];
    const zone = yard?.timeZone ?? 'UTC';
    const to = query.to ?? this.deps.clock.now();
    const from = query.from ?? to - DEFAULT_RANGE[query.bucket];
    checkRange(from, to, query.bucket);

    const starts: number[] = [];
    let cursor = DateTime.fromMillis(from, { zone }).startOf(query.bucket);
    while (cursor.toMillis() < to) {
      starts.push(cursor.toMillis());
      cursor = cursor.plus(query.bucket === 'hour' ? { hours: 1 } : { days: 1 });
    }
    const end = cursor.toMillis();
    const counts = starts.map(() => ({ in: 0, out: 0 }));
    // One yard, every yard (one scope of its own), or the yards of a scoped principal.
    const scopes = yard ? [yard.id] : (principal.yardIds ?? [EVERY_YARD]);
    const kept = yard || principal.yardIds ? YARD_GRAINS : EVERY_YARD_GRAINS;
    const groups = await this.repo.movementCounts({
      scopes,
      grain: coarsestGrain(kept, [...starts, end]),
      from: starts[0] ?? from,
      to: end,
    });
    for (const g of groups) {
      const slot = counts[lastAtOrBefore(starts, Number(g.bucket))];
      if (slot) slot[g.direction] += Number(g.n);
    }
    return {
      yardId: yard?.id ?? null,
      timeZone: zone,
      bucket: query.bucket,
      from: toIso(starts[0] ?? from),
      to: toIso(end),
      totals: {
        in: counts.reduce((sum, c) => sum + c.in, 0),
        out: counts.reduce((sum, c) => sum + c.out, 0),
      },
      buckets: starts.map((start, i) => ({
        start: toIso(start),
        label: DateTime.fromMillis(start, { zone }).toFormat(
          query.bucket === 'day' ? 'yyyy-MM-dd' : "yyyy-MM-dd'T'HH:mm",
        ),
        in: counts[i]!.in,
        out: counts[i]!.out,
      })),
    };
  }

  /**
   * Per yard, in and out during the local day (in the yard's own zone) that holds `at`: the
   * all-yards overview's "movements today" for every yard in one read, not one request per yard.
   */
  async yardMovements(query: YardMovementQueryT, principal: Principal): Promise<YardMovementOutT> {
    const yards = await this.yardsInView(principal, query.yardId);
    const at = query.at ?? this.deps.clock.now();
    const days = yards.map((yard) => {
      const start = DateTime.fromMillis(at, { zone: yard.timeZone }).startOf('day');
      const from = start.toMillis();
      return { yard, from, to: start.plus({ days: 1 }).toMillis() };
    });
    // Yards of one zone share a day: one window (a key range per yard) for all of them.
    const windows = new Map<string, { scopes: string[]; grain: number; from: number; to: number }>();
    for (const d of days) {
      const key = `${d.from}|${d.to}`;
      const w = windows.get(key);
      if (w) w.scopes.push(d.yard.id);
      else {
        const grain = coarsestGrain(YARD_GRAINS, [d.from, d.to]);
        windows.set(key, { scopes: [d.yard.id], grain, from: d.from, to: d.to });
      }
    }
    const counts = new Map<string, { in: number; out: number }>();
    for (const r of await this.repo.movementCountsPerScope([...windows.values()])) {
      const c = counts.get(r.scope) ?? { in: 0, out: 0 };
      if (r.direction === 'in' || r.direction === 'out') c[r.direction] += Number(r.n);
      counts.set(r.scope, c);
    }
    return {
      items: days.map((d) => ({
        ...label(d.yard),
        yardId: d.yard.id,
        timeZone: d.yard.timeZone,
        from: toIso(d.from),
        to: toIso(d.to),
        in: counts.get(d.yard.id)?.in ?? 0,
        out: counts.get(d.yard.id)?.out ?? 0,
      })),
    };
  }

  /** 4xx or 5xx responses per yard and status over a window (default setting dashboard.errorWindowMinutes). */
  async errors(
    kind: '4xx' | '5xx',
    query: { yardId?: string | undefined; from?: number | undefined; to?: number | undefined },
    principal: Principal,
  ): Promise<ErrorFiguresOutT> {
    const yards = await this.yardsInView(principal, query.yardId);
    const to = query.to ?? this.deps.clock.now();
    const windowMinutes = await this.deps.settings.get('dashboard.errorWindowMinutes');
    const from = query.from ?? to - windowMinutes * 60_000;
    if (from >= to) throw new ValidationError([{ path: 'query.from', message: 'must be before to' }]);
    await this.deps.errorStats.flush(); // counts still in memory would be missing otherwise
    const unattributed = !query.yardId && principal.yardIds === null;
    const rows = await this.repo.errorCounts({
      // Always the yards asked for ('' = unattributed): a primary-key range per yard, never a scan
      // of every yard's minutes.
      yardIds: [...yards.map((y) => y.id), ...(unattributed ? [''] : [])],
      from,
      to,
      minStatus: kind === '4xx' ? 400 : 500,
      maxStatus: kind === '4xx' ? 499 : 599,
    });
    const byYard = new Map<string, Array<{ status: number; count: number }>>();
    for (const r of rows) {
      const list = byYard.get(r.yardId) ?? [];
      list.push({ status: Number(r.status), count: Number(r.n) });
      byYard.set(r.yardId, list);
    }
    const item = (yardId: string, yard: Yard | undefined) => {
      const byStatus = byYard.get(yardId) ?? [];
      return {
        ...label(yard),
        yardId: yard ? yard.id : null,
        total: byStatus.reduce((sum, s) => sum + s.count, 0),
        byStatus,
      };
    };
    const items = yards.map((y) => item(y.id, y));
    if (unattributed && byYard.has('')) items.push(item('', undefined));
    return { from: toIso(from), to: toIso(to), items };
  }

  async trailers(yardId: string | undefined, principal: Principal): Promise<TrailerFiguresOutT> {
    const yards = await this.yardsInView(principal, yardId);
    const figures = await this.repo.figures(
      yards.map((y) => y.id),
      TRAILER_FIGURES,
    );
    const carrierIds = [
      ...new Set(figures.flatMap((f) => (f.figure === FIGURE.trailerCarrier && f.item ? [f.item] : []))),
    ];
    const carrierNames = new Map((await this.repo.carrierNames(carrierIds)).map((c) => [c.id, c.name]));
    const byYard = groupByYard(figures);
    const now = this.deps.clock.now();
    return {
      items: yards.map((yard) => {
        const mine = byYard.get(yard.id) ?? [];
        const loads = { empty: 0, loaded: 0, unknown: 0 };
        for (const f of mine) {
          if (f.figure === FIGURE.trailerLoad && f.item in loads)
            loads[f.item as keyof typeof loads] += Number(f.n);
        }
        const open = mine.find((f) => f.figure === FIGURE.trailerVisit);
        return {
          ...label(yard),
          yardId: yard.id,
          trailersInYard: loads.empty + loads.loaded + loads.unknown,
          byLoadStatus: loads,
          byCarrier: mine
            .filter((f) => f.figure === FIGURE.trailerCarrier)
            .map((f) => {
              const carrierId = f.item === NO_CARRIER ? null : f.item;
              return {
                carrierId,
                carrierName: carrierId ? (carrierNames.get(carrierId) ?? null) : null,
                count: Number(f.n),
              };
            })
            .sort((a, b) => b.count - a.count || (a.carrierName ?? '').localeCompare(b.carrierName ?? '')),
          openVisits: Number(open?.n ?? 0),
          averageDwellMs: meanDwell(now, open?.mean),
        };
      }),
    };
  }

  /**
   * Per yard in scope: trailers in the yard, movements of its local day, open tasks (overview.ts).
   * The day's movements are yardMovements' own; the trailers its load figures added up.
   */
  async overview(principal: Principal): Promise<YardOverviewOutT> {
    const today = await this.yardMovements({}, principal);
    const ids = today.items.map((d) => d.yardId);
    const [loads, open] = await Promise.all([
      this.repo.figures(ids, [FIGURE.trailerLoad]),
      openTaskCounts(this.deps.reads.kysely, ids),
    ]);
    const trailers = new Map<string, number>();
    for (const f of loads) trailers.set(f.yardId, (trailers.get(f.yardId) ?? 0) + Number(f.n));
    return {
      items: today.items.map((d) => ({
        yardId: d.yardId,
        yardCode: d.yardCode ?? '',
        trailersInYard: trailers.get(d.yardId) ?? 0,
        movementsToday: d.in + d.out,
        openTasks: open.get(d.yardId) ?? 0,
      })),
    };
  }

  async trucks(yardId: string | undefined, principal: Principal): Promise<TruckFiguresOutT> {
    const yards = await this.yardsInView(principal, yardId);
    const figures = await this.repo.figures(
      yards.map((y) => y.id),
      TRUCK_FIGURES,
    );
    const byYard = groupByYard(figures);
    const now = this.deps.clock.now();
    return {
      items: yards.map((yard) => {
        const of = (figure: string) => byYard.get(yard.id)?.find((f) => f.figure === figure);
        return {
          ...label(yard),
          yardId: yard.id,
          trucksInYard: Number(of(FIGURE.truck)?.n ?? 0),
          averageDwellMs: meanDwell(now, of(FIGURE.truckArrival)?.mean),
        };
      }),
    };
  }

  /** The asked yard (404 unknown, 403 outside scope) or every yard the principal may see. */
  private async yardsInView(principal: Principal, yardId?: string): Promise<Yard[]> {
    if (yardId) {
      assertCanSeeYard(principal, yardId);
      const yards = await this.repo.yards([yardId]);
      if (yards.length === 0) throw new NotFoundError('Yard', yardId);
      return yards;
    }
    return this.repo.yards(principal.yardIds);
  }
}

function groupByYard<R extends { yardId: string }>(rows: R[]): Map<string, R[]> {
  const out = new Map<string, R[]>();
  for (const r of rows) {
    const list = out.get(r.yardId);
    if (list) list.push(r);
    else out.set(r.yardId, [r]);
  }
  return out;
}

function meanDwell(now: number, meanInAt: number | string | null | undefined): number | null {
  if (meanInAt === null || meanInAt === undefined) return null;
  return Math.max(0, Math.round(now - Number(meanInAt)));
}

function label(yard: Yard | undefined) {
  return { yardCode: yard?.code ?? null, yardName: yard?.name ?? null };
}
