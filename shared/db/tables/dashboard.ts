/** Dashboard rollups (migration 0010, shared/modules/dashboard/rollups/): local read models, not synced. */
import type { Direction } from '../../enums.js';

export interface DashboardMovementCountTable {
  /** A yard id, or '*' for every yard of this database. */
  scope: string;
  /** Bucket length in ms: 900000, 3600000 or 86400000 (UTC-aligned). */
  grain: number;
  /** Bucket start, epoch ms. */
  bucket: number;
  direction: Direction;
  n: number;
}

export interface DashboardYardFigureTable {
  yardId: string;
  figure: string;
  item: string;
  n: number;
  total: number;
}

export interface DashboardTruckArrivalTable {
  truckId: string;
  yardId: string;
  at: number;
}
