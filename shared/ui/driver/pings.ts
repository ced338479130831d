/**
 * The phone's location fixes, kept and sent in batches while a shift is open: at most 500 points a
 * request (the server's limit), sent every 30 s or as soon as 100 are waiting. A batch that cannot
 * be sent (no link) stays for the next try; the buffer is capped so a long time offline drops the
 * oldest fixes rather than the phone's memory. A batch the server refuses (4xx: the shift ended,
 * a point outside it) is dropped: sending it again would be refused again.
 */
export interface Point {
  at: string;
  lat: number;
  lon: number;
  accuracyM?: number;
  speed?: number;
  heading?: number;
}

export const MAX_BATCH = 500;

export interface PingBatcherOptions {
  /** Sends one batch; throws a value with `status` (0 = no link) when it fails. */
  send: (points: Point[]) => Promise<void>;
  /** Send once this many are waiting (default 100). */
  flushAt?: number;
  /** Keep at most this many unsent points (default 5000); the oldest go first. */
  cap?: number;
}

export class PingBatcher {
  private points: Point[] = [];
  private sending = false;
  /** Points thrown away: refused by the server or pushed out by the cap. */
  dropped = 0;
  sent = 0;

  constructor(private readonly options: PingBatcherOptions) {}

  get waiting(): number {
    return this.points.length;
  }

  /** Adds a fix; resolves when a flush it triggered is done (or at once). */
  add(point: Point): Promise<void> {
    this.points.push(point);
    const cap = this.options.cap ?? 5000;
    if (this.points.length > cap) {
      this.dropped += this.points.length - cap;
      this.points.splice(0, this.points.length - cap);
    }
    return this.points.length >= (this.options.flushAt ?? 100) ? this.flush() : Promise.resolve();
  }

  /** Sends everything waiting, oldest first, in batches; stops at the first batch that fails on the link. */
  async flush(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    try {
      while (this.points.length > 0) {
        const batch = this.points.slice(0, MAX_BATCH);
        try {
          await this.options.send(batch);
          this.sent += batch.length;
        } catch (err) {
          const status = (err as { status?: number }).status ?? 0;
          if (status === 0 || status >= 500 || status === 429) return; // the link or the server: later
          this.dropped += batch.length;
        }
        // Only what was in the batch goes: points added while it was on its way stay.
        this.points.splice(0, batch.length);
      }
    } finally {
      this.sending = false;
    }
  }

  /** The shift ended: what is waiting can no longer be stored. */
  clear(): void {
    this.points = [];
  }
}

/** A browser position fix as the API's point: the optional parts only when the phone gave them. */
export function pointOf(p: {
  timestamp: number;
  coords: {
    latitude: number;
    longitude: number;
    accuracy: number;
    speed: number | null;
    heading: number | null;
  };
}): Point {
  const point: Point = {
    at: new Date(p.timestamp).toISOString(),
    lat: p.coords.latitude,
    lon: p.coords.longitude,
  };
  if (Number.isFinite(p.coords.accuracy)) point.accuracyM = Math.min(100_000, Math.max(0, p.coords.accuracy));
  if (p.coords.speed !== null && Number.isFinite(p.coords.speed))
    point.speed = Math.min(200, Math.max(0, p.coords.speed));
  // Heading is NaN when the phone stands still.
  if (p.coords.heading !== null && Number.isFinite(p.coords.heading))
    point.heading = Math.min(360, Math.max(0, p.coords.heading));
  return point;
}
