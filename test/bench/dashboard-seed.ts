import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { openDatabase } from '../../shared/db/database.js';
import { MIGRATIONS } from '../../shared/db/migrate.js';
import { rebuildDashboardRollups } from '../../shared/modules/dashboard/rollups/rebuild.js';
import { SiteRepo } from '../../shared/modules/sync/sites.js';
import { Progress } from './dashboard-progress.js';
import { cachedDatabaseFile, type DashboardScale, describeScale, scaleFrom } from './dashboard-scale.js';
import { DAY_MS, mulberry32 } from './dashboard-seed-values.js';
import { type SiteSeed, SiteWriter } from './dashboard-site-writer.js';

/**
 * The cloud database of an organisation (docs/performance.md, the office dashboard at an organisation's scale): 200
 * sites, each with its yard (time zones of every kind, a :30 and a :45 one among them), locations,
 * 5,000 trailers in the yard with their open visits, 90 days of gate movements (300 a day per yard,
 * in and out, each in/out pair one visit), trucks, yard tasks with their events and assignments,
 * the sites' change-log backlog, dead letters, 4xx/5xx figures and invoices. Scale: see
 * dashboard-scale.ts (`--sites 10` for a quick run).
 *
 * The schema is made by the real code (openDatabase applies the migrations) and the sites are
 * registered through SiteRepo, as `site:add` does; the bulk rows then go in with prepared
 * better-sqlite3 statements, one transaction per site, with journal and synchronous OFF (a crash
 * while seeding leaves only the `.partial` file, which the next run starts again).
 *
 * The result is cached under the OS temp dir (file named by migration count and scale); a second
 * run reuses it. `--fresh` seeds again.
 */

export interface SeededDatabase {
  file: string;
  reused: boolean;
  /** How long the seeding took (when it was cached: how long it took then). */
  seedMs: number;
  bytes: number;
  /** The time the data was generated up to ("now" of the seed). */
  anchor: number;
  yards: Array<{ id: string; code: string; siteId: string; timeZone: string }>;
  rows: Record<string, number>;
  rollupsRebuiltMs: number | null;
}

/** Time zones of the yards, in turn: whole hours, :30 (Kolkata, St John's, Adelaide) and :45 (Kathmandu). */
const ZONES = [
  'America/Chicago',
  'America/New_York',
  'America/Denver',
  'America/Los_Angeles',
  'America/Phoenix',
  'Asia/Kolkata',
  'Europe/Berlin',
  'Europe/London',
  'America/St_Johns',
  'Australia/Adelaide',
  'Asia/Kathmandu',
  'America/Mexico_City',
  'Asia/Tokyo',
  'Pacific/Auckland',
];
const CARRIERS = 500;

/** Returns the seeded database for this scale: the cached one, or a new one (then cached). */
export async function dashboardDatabase(
  scale: DashboardScale,
  opts: { fresh?: boolean; file?: string } = {},
): Promise<SeededDatabase> {
  const file = opts.file ?? cachedDatabaseFile(scale);
  const metaFile = `${file}.json`;
  if (!opts.fresh && existsSync(file) && existsSync(metaFile)) {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as SeededDatabase;
    return { ...meta, file, reused: true, bytes: statSync(file).size };
  }
  mkdirSync(dirname(file), { recursive: true });
  for (const f of [file, metaFile]) rmSync(f, { force: true });
  const partial = `${file}.partial`;
  removeDatabase(partial);
  const started = performance.now();
  console.log(`Seeding ${partial}: one transaction per site, journal and synchronous OFF while seeding`);
  const seeded = await seed(partial, scale);
  renameSync(partial, file);
  const meta: SeededDatabase = {
    ...seeded,
    file,
    reused: false,
    seedMs: Math.round(performance.now() - started),
    bytes: statSync(file).size,
  };
  writeFileSync(metaFile, `${JSON.stringify(meta)}\n`);
  return meta;
}

function removeDatabase(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true });
}

async function seed(file: string, scale: DashboardScale) {
  const anchor = Math.floor(Date.now() / 60_000) * 60_000;
  const siteIds = Array.from({ length: scale.sites }, (_, s) => `site-${String(s + 1).padStart(4, '0')}`);

  // The schema by the real migrations, the sites as `site:add` registers them.
  const app = openDatabase(file);
  try {
    const sites = new SiteRepo(app.kysely, { now: () => anchor - 200 * DAY_MS });
    for (const id of siteIds) {
      await sites.create({
        id,
        name: `Site ${id.slice(5)}`,
        password: randomBytes(24).toString('base64url'),
      });
    }
  } finally {
    app.close();
  }

  const db = new Database(file);
  // Seeding only: no journal, no fsync, one writer holding the file (see the module comment).
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('cache_size = -1000000');
  db.pragma('temp_store = MEMORY');
  const progress = new Progress(scale);
  const rng = mulberry32(15);
  const writer = new SiteWriter(db, rng, progress);
  const org = db.transaction(() => writer.organisation({ anchor, carriers: CARRIERS, sites: scale.sites }))();
  const yards: SeededDatabase['yards'] = [];
  siteIds.forEach((siteId, s) => {
    const site: SiteSeed = {
      index: s,
      siteId,
      code: `Y${String(s + 1).padStart(4, '0')}`,
      timeZone: ZONES[s % ZONES.length]!,
      anchor,
      scale,
    };
    const yard = db.transaction(() => writer.site(site, org))();
    yards.push({ id: yard.yardId, code: site.code, siteId, timeZone: site.timeZone });
    progress.siteDone(s + 1);
  });
  progress.finish();
  const rollupsRebuiltMs = rebuildRollups(db);
  db.pragma('locking_mode = NORMAL');
  db.pragma('journal_mode = WAL'); // what openDatabase uses; the file is left as the cloud keeps it
  db.close();
  return { anchor, yards, rows: progress.rows, rollupsRebuiltMs };
}

/**
 * The dashboard's rollups are kept by observers of each write; the rows above were written with
 * plain SQL, so the rollups are counted once from them (the same rebuild the migration's backfill
 * does). Returns its time in ms.
 */
function rebuildRollups(db: Database.Database): number {
  console.log('Rebuilding the dashboard rollups...');
  const started = performance.now();
  rebuildDashboardRollups(db);
  return Math.round(performance.now() - started);
}

async function main(): Promise<void> {
  const scale = scaleFrom(process.argv.slice(2));
  const fresh = process.argv.includes('--fresh');
  console.log(`Dashboard database: ${describeScale(scale)}; schema of ${MIGRATIONS.length} migrations`);
  const result = await dashboardDatabase(scale, { fresh });
  printSeeded(result);
}

export function printSeeded(result: SeededDatabase): void {
  const gb = (result.bytes / 1024 ** 3).toFixed(2);
  const how = result.reused ? 'reused from the cache (seeded earlier in' : 'seeded in';
  console.log(
    `${result.file}\n  ${gb} GiB, ${how} ${(result.seedMs / 1000).toFixed(1)} s${result.reused ? ')' : ''}`,
  );
  console.log(`  data up to ${new Date(result.anchor).toISOString()}`);
  if (result.rollupsRebuiltMs !== null) console.log(`  rollups rebuilt in ${result.rollupsRebuiltMs} ms`);
  const rows = Object.entries(result.rows)
    .map(([table, n]) => `${table} ${n.toLocaleString('en')}`)
    .join(', ');
  console.log(`  rows: ${rows}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
