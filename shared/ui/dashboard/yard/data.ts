import { api, call, type Schemas } from '../../common/api/client';
import { allPages } from '../../common/api/pages';

export type TrailerFigures = Schemas['DashboardTrailerFigures']['items'][number];
export type MovementFigures = Schemas['DashboardMovementFigures'];
export type ErrorFigures = Schemas['DashboardErrorFigures'];
export type TaskSummary = Schemas['YardTaskSummary'];
export type Bucket = 'hour' | 'day';

const limit = 500;
/** Rows of the longest-dwell table. */
export const DWELL_ROWS = 20;

/** What the yard figures show of one yard, read in parallel. */
export interface YardFiguresData {
  /** null: no trailer of this yard (the figures route lists yards with trailers). */
  trailers: TrailerFigures | null;
  /** The trailers in the yard per place and the longest there: one request whatever the yard holds. */
  inYard: Schemas['TrailersInYard'];
  locations: Schemas['Location'][];
  carriers: Schemas['Carrier'][];
  tasks: TaskSummary;
  errors4xx: ErrorFigures;
  errors5xx: ErrorFigures;
}

export async function loadYardFigures(yardId: string): Promise<YardFiguresData> {
  const [figures, inYard, locations, carriers, tasks, errors4xx, errors5xx] = await Promise.all([
    call(api.GET('/api/dashboard/yard/trailer', { params: { query: { yardId } } })),
    call(api.GET('/api/trailer/in-yard', { params: { query: { yardId, longest: DWELL_ROWS } } })),
    allPages((cursor) =>
      call(
        api.GET('/api/yard/{id}/location', { params: { path: { id: yardId }, query: { limit, cursor } } }),
      ),
    ),
    allPages((cursor) => call(api.GET('/api/carrier', { params: { query: { limit, cursor } } }))),
    call(api.GET('/api/yard-task/summary/{yardId}', { params: { path: { yardId } } })),
    call(api.GET('/api/dashboard/yard/error4xx', { params: { query: { yardId } } })),
    call(api.GET('/api/dashboard/yard/error5xx', { params: { query: { yardId } } })),
  ]);
  return {
    trailers: figures.items.find((i) => i.yardId === yardId) ?? null,
    inYard,
    locations,
    carriers,
    tasks,
    errors4xx,
    errors5xx,
  };
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
 * One row per yard for the overview: three requests whatever the number of yards, each covering
 * every yard in the user's scope (trailers, today's movements in each yard's own day, tasks).
 */
export async function loadAllYards(yards: Schemas['Yard'][]): Promise<YardRow[]> {
  const [figures, tasks, today] = await Promise.all([
    call(api.GET('/api/dashboard/yard/trailer')),
    call(api.GET('/api/yard-task/summary')),
    call(api.GET('/api/dashboard/yard/movement')),
  ]);
  return yards.map((yard) => {
    const t = tasks.items.find((s) => s.yardId === yard.id);
    const m = today.items.find((i) => i.yardId === yard.id);
    return {
      yard,
      trailersInYard: figures.items.find((f) => f.yardId === yard.id)?.trailersInYard ?? 0,
      movementsToday: m ? m.in + m.out : 0,
      openTasks: t ? t.counts.QUEUED + t.counts.ASSIGNED + t.counts.IN_PROGRESS : 0,
    };
  });
}
