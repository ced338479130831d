import { v7 as uuidv7 } from 'uuid';
import { format as formatHlc } from '../../shared/sync/hlc.js';

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
export const MINUTE_MS = 60_000;

/** An HLC as the side that wrote the row would have given it (its origin: the site, or 'cloud'). */
export function hlcAt(ms: number, counter: number, origin: string): string {
  return formatHlc(Math.floor(ms), counter & 0xffff, origin);
}

/** A UUIDv7 of the given time, as the row would have been given when it was made. */
export function idAt(ms: number): string {
  return uuidv7({ msecs: Math.floor(ms) });
}

/** A small deterministic PRNG: the same scale seeds the same shape of data. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Min-heap of (key, value) pairs: the pool trailer free again soonest. */
export class MinHeap {
  private readonly keys: number[] = [];
  private readonly values: number[] = [];
  get size(): number {
    return this.keys.length;
  }
  peekKey(): number {
    return this.keys[0]!;
  }
  push(key: number, value: number): void {
    let i = this.keys.length;
    this.keys.push(key);
    this.values.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.keys[parent]! <= key) break;
      this.keys[i] = this.keys[parent]!;
      this.values[i] = this.values[parent]!;
      i = parent;
    }
    this.keys[i] = key;
    this.values[i] = value;
  }
  pop(): number {
    const top = this.values[0]!;
    const key = this.keys.pop()!;
    const value = this.values.pop()!;
    const n = this.keys.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const child = l + 1 < n && this.keys[l + 1]! < this.keys[l]! ? l + 1 : l;
      if (this.keys[child]! >= key) break;
      this.keys[i] = this.keys[child]!;
      this.values[i] = this.values[child]!;
      i = child;
    }
    this.keys[i] = key;
    this.values[i] = value;
    return top;
  }
}

export function nullableFloor(ms: number | null): number | null {
  return ms === null ? null : Math.floor(ms);
}

export function scacOf(c: number): string {
  let s = '';
  let n = c;
  for (let i = 0; i < 4; i++) {
    s = String.fromCharCode(65 + (n % 26)) + s;
    n = Math.floor(n / 26);
  }
  return s;
}

export function plate(rng: () => number): string {
  const letter = () => String.fromCharCode(65 + Math.floor(rng() * 26));
  return `${letter()}${letter()}${letter()}${Math.floor(1000 + rng() * 9000)}`;
}

export function vin(rng: () => number): string {
  return Array.from({ length: 17 }, () => 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789'[Math.floor(rng() * 33)]).join(
    '',
  );
}

export function seal(rng: () => number): string {
  return `SL${Math.floor(1_000_000 + rng() * 9_000_000)}`;
}

export function trailerType(x: number): string {
  return x < 0.7 ? 'dry_van' : x < 0.85 ? 'reefer' : x < 0.9 ? 'flatbed' : x < 0.97 ? 'container' : 'tanker';
}

export const LOADS = ['empty', 'loaded', 'unknown'] as const;
export const TASK_TYPES = ['move', 'move', 'pull_to_door', 'pull_to_door', 'return_to_spot', 'shunt'];
export const CLIENT_ERRORS = [400, 401, 403, 404, 404, 409, 422, 429];
export const REGIONS = ['IL', 'TX', 'CA', 'OH', 'GA', 'PA', 'NJ', 'ON', 'BC', 'NL'];
export const FIRST_NAMES = [
  'Ana',
  'Ben',
  'Chen',
  'Dana',
  'Eli',
  'Fatima',
  'Gus',
  'Hana',
  'Ivan',
  'Jo',
  'Kofi',
  'Lena',
  'Maya',
  'Nils',
];
export const LAST_NAMES = [
  'Novak',
  'Okafor',
  'Patel',
  'Quinn',
  'Rossi',
  'Silva',
  'Tanaka',
  'Ueda',
  'Varga',
  'Weber',
  'Xu',
  'Young',
  'Zhou',
];
export const CARRIER_WORDS = ['Freight', 'Logistics', 'Transport', 'Haulage', 'Express', 'Lines', 'Carriers'];
