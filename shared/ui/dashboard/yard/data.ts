import { api, call, type Schemas } from '../../common/api/client';

export type TrailerFigures = Schemas['DashboardTrailerFigures']['items'][number];
export type MovementFigures = Schemas['DashboardMovementFigures'];
export type ErrorFigures = Schemas['DashboardErrorFigures'];
export type TaskSummary = Schemas['YardTaskSummary'];
export type Bucket = 'hour' | 'day';

/** Rows of the longest-dwell table. */
export const DWELL_ROWS = 20;
/** Most ids in one list request (the API's limit). */
const MAX_IDS = 100;

/** What the yard figures show of one yard. */
export interface YardFiguresData {
  /** null: no trailer of this yard (the figures route lists yards with trailers). */
  trailers: TrailerFigures | null;
  /** Trailers against capacity and places in use, counted by the API whatever the yard holds. */
  occupancy: Schemas['YardOccupancy'];
  /** The trailers in the yard longest (and how many there are): one request, without per-place counts. */
  inYard: Schemas['TrailersInYard'];
  /** Only the places and carriers the panels name (of the longest, and of the carrier figures). */
  locations: Schemas['Location'][];
  carriers: Schemas['Carrier'][];
  tasks: TaskSummary;
  errors4xx: ErrorFigures;
  errors5xx: ErrorFigures;
}

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

function distinct(ids: Array<string | null | undefined>): string[] {
  return [...new Set(ids.filter((id): id is string => !!id))];
}

/** These carriers (a request per 100 ids; none without ids). */
async function carriersById(ids: string[]): Promise<Schemas['Carrier'][]> {
  const pages = await Promise.all(
    chunks(ids, MAX_IDS).map((part) =>
      call(api.GET('/api/carrier', { params: { query: { ids: part, limit: MAX_IDS } } })),
    ),
  );
  return pages.flatMap((p) => p.items);
}

async function locationsById(yardId: string, ids: string[]): Promise<Schemas['Location'][]> {
  const pages = await Promise.all(
    chunks(ids, MAX_IDS).map((part) =>
      call(
        api.GET('/api/yard/{id}/location', {
          params: { path: { id: yardId }, query: { ids: part, limit: MAX_IDS } },
        }),
      ),
    ),
  );
  return pages.flatMap((p) => p.items);
}

/**
 * One request per panel, each with only what the panel shows (docs/web-apps.md "Requests"), in
 * parallel; then the names of the places and carriers the panels show, only those. Reading every
 * place (nine pages of 500 at 4,000 places) and every carrier made the screen wait on the largest
 * yard's lists.
 */
export async function loadYardFigures(yardId: string): Promise<YardFiguresData> {
  const figuresP = call(api.GET('/api/dashboard/yard/trailer', { params: { query: { yardId } } }));
  const inYardP = call(
    api.GET('/api/trailer/in-yard', {
      params: { query: { yardId, longest: DWELL_ROWS, byLocation: false } },
    }),
  );
  // The names as soon as the two answers that hold their ids are in, while the others are read.
  const namesP = Promise.all([figuresP, inYardP]).then(([figures, inYard]) =>
    Promise.all([
      locationsById(yardId, distinct(inYard.longest.map((t) => t.locationId))),
      carriersById(
        distinct([
          ...(figures.items.find((i) => i.yardId === yardId)?.byCarrier ?? []).map((c) => c.carrierId),
          ...inYard.longest.map((t) => t.carrierId),
        ]),
      ),
    ]),
  );
  const [figures, occupancy, inYard, tasks, errors4xx, errors5xx, [locations, carriers]] = await Promise.all([
    figuresP,
    call(api.GET('/api/yard/{id}/occupancy', { params: { path: { id: yardId } } })),
    inYardP,
    call(api.GET('/api/yard-task/summary/{yardId}', { params: { path: { yardId } } })),
    call(api.GET('/api/dashboard/yard/error4xx', { params: { query: { yardId } } })),
    call(api.GET('/api/dashboard/yard/error5xx', { params: { query: { yardId } } })),
    namesP,
  ]);
  const trailers = figures.items.find((i) => i.yardId === yardId) ?? null;
  return { trailers, occupancy, inYard, locations, carriers, tasks, errors4xx, errors5xx };
}

/** In and out per hour (last 24 h) or per day (last 30 days), in the yard's time zone. */
export function loadMovements(yardId: string, bucket: Bucket): Promise<MovementFigures> {
  return call(api.GET('/api/dashboard/movement', { params: { query: { yardId, bucket } } }));
}

export interface YardRow {
  yard: Schemas['Yard'];
  trailersInYard: number;
  movementsToday: number;
  openTasks: number;
}

/**
 * One row per yard for the overview: one request whatever the number of yards, with only the
 * numbers the rows show (GET /api/dashboard/yard/overview: trailers, today's movements in each
 * yard's own day, open tasks).
 */
export async function loadAllYards(yards: Schemas['Yard'][]): Promise<YardRow[]> {
  const overview = await call(api.GET('/api/dashboard/yard/overview'));
  const byYard = new Map(overview.items.map((i) => [i.yardId, i]));
  return yards.map((yard) => {
    const o = byYard.get(yard.id);
    return {
      yard,
      trailersInYard: o?.trailersInYard ?? 0,
      movementsToday: o?.movementsToday ?? 0,
      openTasks: o?.openTasks ?? 0,
    };
  });
}
