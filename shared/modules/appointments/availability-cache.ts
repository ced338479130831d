import type { TableGenerations } from '../../db/generations.js';
import type { RawJson } from '../../http/raw-json.js';

/** What an availability answer is computed from (db/generations.ts names: tables in camelCase). */
const SOURCES = ['appointment', 'schedulingConfig', 'loadType', 'location', 'yard'] as const;

interface Kept {
  stamp: string;
  validUntil: number;
  answer: RawJson;
}

/**
 * Availability answers kept while nothing they were computed from has changed: no write to the
 * bookings, the scheduling config, the load types, the doors or the yard (every write moves its
 * table's generation, also a row applied by sync and, on PostgreSQL, a commit on another node), and
 * the clock has not reached `validUntil`, the first instant at which the lead times would change
 * the answer (slots-service.ts works it out). A carrier's portal and the office's booking dialog
 * ask for the same month again and again between bookings; each booking makes the next answer a
 * fresh one. Bounded: the least recently used answer goes first.
 */
export class AvailabilityCache {
  private readonly kept = new Map<string, Kept>();

  constructor(
    private readonly generations: TableGenerations,
    private readonly max = 128,
  ) {}

  /** The generations of the sources now: take it before computing an answer, give it to set(). */
  stamp(): string {
    return SOURCES.map((t) => this.generations.of(t)).join('.');
  }

  get(key: string, now: number): RawJson | undefined {
    const hit = this.kept.get(key);
    if (!hit) return undefined;
    if (hit.stamp !== this.stamp() || now >= hit.validUntil) {
      this.kept.delete(key);
      return undefined;
    }
    this.kept.delete(key);
    this.kept.set(key, hit);
    return hit.answer;
  }

  /** Keeps an answer computed at `stamp`, unless something was written meanwhile (it may be stale). */
  set(key: string, stamp: string, validUntil: number, answer: RawJson): void {
    if (stamp !== this.stamp()) return;
    this.kept.delete(key);
    if (this.kept.size >= this.max) this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(key, { stamp, validUntil, answer });
  }
}
