import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATIONS } from '../../shared/db/migrate.js';

/**
 * The size of the organisation the dashboard benchmark seeds (docs/performance.md, the office dashboard at an
 * organisation's scale): 200 sites, 5,000 trailers in each yard, 90 days of 300 movements a day.
 * Each figure is a CLI flag (`--sites 10`) or an environment variable (DASH_SITES=10).
 */
export interface DashboardScale {
  sites: number;
  /** Trailers in each yard now (open visits, checked in over the seeded days). */
  trailersPerSite: number;
  days: number;
  /** Gate movements a day in each yard, in and out together. */
  movesPerDay: number;
  /** Yard tasks created a day in each yard (completed ones, plus a few open). */
  tasksPerDay: number;
}

const FLAGS: Record<keyof DashboardScale, { flag: string; env: string; fallback: number }> = {
  sites: { flag: '--sites', env: 'DASH_SITES', fallback: 200 },
  trailersPerSite: { flag: '--trailers', env: 'DASH_TRAILERS', fallback: 5_000 },
  days: { flag: '--days', env: 'DASH_DAYS', fallback: 90 },
  movesPerDay: { flag: '--moves-per-day', env: 'DASH_MOVES_PER_DAY', fallback: 300 },
  tasksPerDay: { flag: '--tasks-per-day', env: 'DASH_TASKS_PER_DAY', fallback: 20 },
};

/**
 * Bumped whenever the seeder writes different rows: a cached database of an older seeder is not
 * reused (the schema's side is the migration count, in the file name too).
 */
export const SEED_VERSION = 2;

export function scaleFrom(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): DashboardScale {
  const scale = {} as DashboardScale;
  for (const [key, { flag, env: name, fallback }] of Object.entries(FLAGS) as Array<
    [keyof DashboardScale, (typeof FLAGS)[keyof DashboardScale]]
  >) {
    const at = argv.indexOf(flag);
    const raw = at >= 0 ? argv[at + 1] : env[name];
    const value = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(value) || value < 1) {
      throw new Error(`${flag} (${name}) must be a whole number >= 1, got ${raw}`);
    }
    scale[key] = value;
  }
  if (scale.sites > 9999) throw new Error('--sites: at most 9999');
  return scale;
}

/** Where the seeded database of this scale and schema is cached between runs (outside the repository). */
export function cachedDatabaseFile(scale: DashboardScale, dir = join(tmpdir(), 'yard-dashboard-bench')) {
  const key = [
    `m${MIGRATIONS.length}`,
    `v${SEED_VERSION}`,
    `s${scale.sites}`,
    `t${scale.trailersPerSite}`,
    `d${scale.days}`,
    `p${scale.movesPerDay}`,
    `k${scale.tasksPerDay}`,
  ].join('-');
  return join(dir, `dashboard-${key}.db`);
}

export function describeScale(s: DashboardScale): string {
  const moves = s.sites * s.days * s.movesPerDay;
  return (
    `${s.sites} sites, ${s.trailersPerSite.toLocaleString('en')} trailers in yard per site ` +
    `(${(s.sites * s.trailersPerSite).toLocaleString('en')}), ${s.days} days of ${s.movesPerDay} movements ` +
    `a day per yard (${moves.toLocaleString('en')}), ${s.tasksPerDay} tasks a day per yard`
  );
}
