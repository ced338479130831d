import { signal } from '@preact/signals';
import { api, call } from '../common/api/client';
import { ProblemError } from '../common/api/problem';
import { PingBatcher, type Point, pointOf } from './pings';
import { heartbeat } from './shift';

/** Whether the phone gives its location: asked, given, refused by the driver, or not to be had. */
export type GeoState = 'off' | 'asking' | 'on' | 'denied' | 'unavailable';
export const geoState = signal<GeoState>('off');

const FLUSH_EVERY_MS = 30_000;
// Well inside the default offline timeout (tasks.driverTimeoutSec, 120 s), which drivers cannot read.
const HEARTBEAT_EVERY_MS = 30_000;

interface BatteryManagerLike {
  level: number;
}

/**
 * While a shift is open: the phone's location fixes go to the server in batches (pings.ts) and a
 * heartbeat with the battery level keeps the driver from counting as offline. Returns the stop
 * function (shift ended, logout). Location refused is said on the screen; the app works on.
 */
export function startTracking(): () => void {
  stopTracking?.();
  const batcher = new PingBatcher({
    send: async (points: Point[]) => {
      try {
        await call(api.POST('/api/yard-task/driver/session/locations', { body: { points } }));
      } catch (err) {
        throw { status: err instanceof ProblemError ? err.status : 0 };
      }
    },
  });
  let last: Point | undefined;
  let watch: number | undefined;
  if ('geolocation' in navigator) {
    geoState.value = 'asking';
    watch = navigator.geolocation.watchPosition(
      (p) => {
        geoState.value = 'on';
        last = pointOf(p);
        void batcher.add(last);
      },
      (e) => {
        geoState.value = e.code === e.PERMISSION_DENIED ? 'denied' : 'unavailable';
      },
      { enableHighAccuracy: true, maximumAge: 5_000 },
    );
  } else geoState.value = 'unavailable';

  const beat = async () => {
    const battery = await batteryPercent();
    await heartbeat({
      ...(battery !== undefined ? { battery } : {}),
      ...(last ? { lat: last.lat, lon: last.lon } : {}),
    });
  };
  void beat();
  const flushTimer = setInterval(() => void batcher.flush(), FLUSH_EVERY_MS);
  const beatTimer = setInterval(() => void beat(), HEARTBEAT_EVERY_MS);
  const onOnline = () => void batcher.flush();
  window.addEventListener('online', onOnline);
  flushWaiting = () => batcher.flush();
  stopTracking = () => {
    flushWaiting = async () => undefined;
    stopTracking = undefined;
    if (watch !== undefined) navigator.geolocation.clearWatch(watch);
    clearInterval(flushTimer);
    clearInterval(beatTimer);
    window.removeEventListener('online', onOnline);
    batcher.clear();
    geoState.value = 'off';
  };
  return stopTracking;
}

let stopTracking: (() => void) | undefined;

/** Sends the fixes still waiting (before the shift ends: after it they would be refused). */
export function flushPings(): Promise<void> {
  return flushWaiting();
}

let flushWaiting: () => Promise<void> = async () => undefined;

async function batteryPercent(): Promise<number | undefined> {
  const get = (navigator as { getBattery?: () => Promise<BatteryManagerLike> }).getBattery;
  if (!get) return undefined;
  try {
    const b = await get.call(navigator);
    return Math.round(b.level * 100);
  } catch {
    return undefined;
  }
}
