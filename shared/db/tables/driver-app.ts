/** The driver app: driver sessions, their location pings and push tokens. */
import type { Synced, Timestamps } from './columns.js';

export interface DriverSessionTable extends Synced, Timestamps {
  id: string;
  driverId: string;
  yardId: string;
  deviceId: string | null;
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
  lastCheckAt: number | null;
  lastLat: number | null;
  lastLon: number | null;
  lastLocationAt: number | null;
}

export interface SessionLocationTable extends Synced {
  id: string;
  sessionId: string;
  at: number;
  lat: number;
  lon: number;
  accuracyM: number | null;
  speed: number | null;
  heading: number | null;
  createdAt: number;
}

export interface PushTokenTable extends Synced, Timestamps {
  id: string;
  driverId: string;
  deviceId: string;
  platform: 'web' | 'android' | 'ios';
  token: string;
}
