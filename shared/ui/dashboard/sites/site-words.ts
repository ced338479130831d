import type { Schemas } from '../../common/api/client';
import { duration, yardTime } from '../../common/time';

export type SiteStatus = Schemas['SiteSyncStatus'];
export type GateState = NonNullable<SiteStatus['gates']>[number]['state'];

/** A clock further off than this is worth a word: synced times start to disagree by minutes. */
export const SKEW_WORTH_SAYING_MS = 30_000;

/** "online since 14:02, 3 h 5 min", "offline since 14:02, 12 min", "never connected". */
export function linkWords(
  link: SiteStatus['link'],
  since: string | null,
  timeZone: string,
  now: number,
): string {
  if (link === 'never') return 'never connected';
  if (!since) return link;
  const at = Date.parse(since);
  if (Number.isNaN(at)) return link;
  const how = now - at < 60_000 ? '' : `, ${duration(now - at)}`;
  return `${link} since ${yardTime(since, timeZone, now)}${how}`;
}

/** "14:05 (3 min ago)", or "never". */
export function lastSeenWords(at: string | null, timeZone: string, now: number): string {
  if (!at) return 'never';
  const ms = Date.parse(at);
  if (Number.isNaN(ms)) return 'never';
  const ago = now - ms < 60_000 ? 'just now' : `${duration(now - ms)} ago`;
  return `${yardTime(at, timeZone, now)} (${ago})`;
}

/** "2 min ahead", "45 min behind": a site clock compared with this server's; null when small. */
export function skewWords(skewMs: number): string | null {
  if (Math.abs(skewMs) < SKEW_WORTH_SAYING_MS) return null;
  const amount =
    Math.abs(skewMs) < 60_000 ? `${Math.round(Math.abs(skewMs) / 1000)} s` : duration(Math.abs(skewMs));
  return `clock ${amount} ${skewMs > 0 ? 'ahead' : 'behind'}`;
}

export const GATE_STATE_LABEL: Record<GateState | 'simulated', string> = {
  ok: 'ok',
  fault: 'fault',
  opening: 'opening',
  idle: 'idle',
  unknown: 'unknown',
  simulated: 'simulated',
};

/** The order the eye wants: what needs attention first. */
const GATE_STATE_ORDER: (GateState | 'simulated')[] = [
  'fault',
  'unknown',
  'opening',
  'idle',
  'simulated',
  'ok',
];

/** Counts per state, worst first: [["fault", 1], ["ok", 3]]. */
export function gateCounts(gates: { state: GateState | 'simulated' }[]): [GateState | 'simulated', number][] {
  const counts = new Map<GateState | 'simulated', number>();
  for (const g of gates) counts.set(g.state, (counts.get(g.state) ?? 0) + 1);
  return GATE_STATE_ORDER.filter((s) => counts.has(s)).map((s) => [s, counts.get(s)!]);
}

export function gateTone(state: GateState | 'simulated'): 'ok' | 'warn' | 'bad' | 'neutral' {
  if (state === 'fault') return 'bad';
  if (state === 'unknown' || state === 'opening') return 'warn';
  if (state === 'ok') return 'ok';
  return 'neutral';
}

/** Offline (and never connected) sites first: they are what the office acts on; then by name. */
export function sortSites(sites: SiteStatus[]): SiteStatus[] {
  const rank = (s: SiteStatus) => (s.link === 'online' ? 1 : 0);
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
  return [...sites].sort((a, b) => rank(a) - rank(b) || collator.compare(a.name, b.name));
}

export interface SiteSummary {
  online: number;
  offline: number;
  queued: number;
  deadLetters: number;
}

/** The line at the top: how many sites are online, offline (never connected counts as offline), queued in all. */
export function summarise(sites: SiteStatus[]): SiteSummary {
  let online = 0;
  let queued = 0;
  let deadLetters = 0;
  for (const s of sites) {
    if (s.link === 'online') online += 1;
    queued += s.queued;
    deadLetters += s.deadLetters;
  }
  return { online, offline: sites.length - online, queued, deadLetters };
}

/** Replaces one site's row by a live update (or adds a site seen for the first time). */
export function replaceSite(sites: SiteStatus[], row: SiteStatus): SiteStatus[] {
  const i = sites.findIndex((s) => s.siteId === row.siteId);
  if (i < 0) return [...sites, row];
  const next = [...sites];
  next[i] = row;
  return next;
}

/** The versions most sites run: a site on another one is flagged (the cloud does not report its own). */
export function usualVersion(sites: SiteStatus[]): string | null {
  const counts = new Map<string, number>();
  for (const s of sites) if (s.version) counts.set(s.version, (counts.get(s.version) ?? 0) + 1);
  let best: string | null = null;
  let bestCount = 0;
  for (const [v, n] of counts) {
    if (n > bestCount) {
      best = v;
      bestCount = n;
    }
  }
  // With one version, or a tie between the only two, no site is "the odd one out".
  const ties = [...counts.values()].filter((n) => n === bestCount).length;
  return counts.size > 1 && ties === 1 ? best : null;
}

export const count = new Intl.NumberFormat();
