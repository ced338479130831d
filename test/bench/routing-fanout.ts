import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Check, finish } from './sync-lib.js';

/**
 * The cloud's change-log fan-out of gate movements (docs/sync.md "Routing"; figures in docs/performance.md).
 *
 * A cloud (SQLite, in this process) with BENCH_ROUTING_SITES (200) registered sites, each with a yard
 * and a spot, and BENCH_ROUTING_START (5) trailers standing in each yard. Then BENCH_ROUTING_MOVEMENTS
 * (6,000) gate movements, spread over the sites at random (seeded): a check-out of a trailer in the
 * site's yard, or a check-in of a trailer that is out of every yard (BENCH_ROUTING_NEW, 5%, a
 * trailer never seen before; 5% a trailer still standing in another site's yard, which left it unrecorded), half of
 * them with a load status. Each movement is the trailer row the site's edge sends (the site's own
 * copy with the movement's fields, as ChangeCapture writes it), applied by the cloud's ChangeApplier,
 * which forwards it into other sites' logs. The sites' copies are kept as their edges would: each
 * row the cloud logs for a site is merged into that site's copy (mergeShared), unless the edge could
 * not store it (a yard it does not have: a dead letter there).
 *
 * Measured over the movements (setup excluded): the cloud's change-log rows and bytes per movement
 * (and apart, the rows that carry a new trailer to every site: the price of recognising it at any
 * gate, the same under both rules),
 * and each edge's foreign rows (rows in its log about a trailer not in its yard once the write is
 * applied), extrapolated to a day of BENCH_ROUTING_PER_DAY (300) movements at every site; and the
 * rows the edges would have dead-lettered.
 *
 * Before and after: the rule of another commit runs the same workload from its own source tree
 * (`git archive` into a temporary directory, node_modules linked): BENCH_ROUTING_BEFORE=<commit>
 * (e.g. the commit before routing by relevance, f11ff24). Without it only this tree is measured.
 *
 * Run: npm run bench:routing   (BENCH_ROUTING_BEFORE=f11ff24 npm run bench:routing for both)
 * Targets (this tree): besides new trailers' identities, under 2 change-log rows per movement at
 * the cloud (a trailer arriving from another site's yard comes back to its new site as one merged
 * row, the site it left unrecorded gets its departure), under 10% of the old rule's foreign rows
 * per edge, no dead letters.
 */

const SITES = Number(process.env.BENCH_ROUTING_SITES ?? 200);
const START = Number(process.env.BENCH_ROUTING_START ?? 5);
const MOVEMENTS = Number(process.env.BENCH_ROUTING_MOVEMENTS ?? 6000);
const PER_DAY = Number(process.env.BENCH_ROUTING_PER_DAY ?? 300);
const NEW_SHARE = Number(process.env.BENCH_ROUTING_NEW ?? 0.05);
const FORCED_SHARE = 0.05;

interface Figures {
  commit: string;
  sites: number;
  movements: number;
  seconds: number;
  cloudRowsPerMovement: number;
  /** Of which: a new trailer's rows (its identity to every other site). */
  newTrailerRowsPerMovement: number;
  cloudBytesPerMovement: number;
  cloudRowsPerDay: number;
  foreignRowsPerEdgePerDay: number;
  deadLettersPerEdgePerDay: number;
}

type Fields = Record<string, unknown>;

/** A trailer as a gate registers it, before the movement's fields. */
const BLANK_TRAILER: Fields = {
  carrierId: null,
  plate: null,
  plateRegion: null,
  type: 'dry_van',
  lengthFt: null,
  loadStatus: 'unknown',
  sealNumber: null,
  yardId: null,
  locationId: null,
  arrivedAt: null,
  notes: null,
};

/** One variant, in this process, from the source tree at `root`. */
async function measure(root: string): Promise<Figures> {
  const load = (path: string) => import(pathToFileURL(join(root, path)).href);
  const { startTestApp } = await load('test/helpers/test-app.ts');
  const { Client } = await load('test/helpers/http.ts');
  const { ChangeApplier } = await load('shared/sync/applier.ts');
  const { mergeShared } = await load('shared/sync/merge.ts');
  const { SCHEMA_VERSION } = await load('shared/db/migrate.ts');

  const cloud = await startTestApp({ env: { YARD_ROLE: 'cloud' }, config: { validateResponses: false } });
  const sqlite = cloud.db.sqlite;
  const api = new Client(cloud.url, cloud.adminToken);
  const applier = new ChangeApplier(cloud.core);
  const random = seeded(17);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

  const sites: string[] = [];
  const yardOf = new Map<string, string>();
  const spotOf = new Map<string, string>();
  const siteOfYard = new Map<string, string>();
  for (let i = 0; i < SITES; i++) {
    const site = `site-${String(i).padStart(3, '0')}`;
    sqlite
      .prepare('INSERT INTO site (id, name, mqtt_password_hash, created_at) VALUES (?, ?, ?, ?)')
      .run(site, site, '$7$unused', Date.now());
    const yard = await api.post('/api/yard', {
      code: `Y${i}`,
      name: `Yard ${i}`,
      timeZone: 'UTC',
      siteId: site,
    });
    if (yard.status !== 201) throw new Error(`yard: ${yard.status} ${yard.text}`);
    const spot = await api.post(`/api/yard/${yard.body.id}/location`, { kind: 'spot', name: `S-${i}` });
    if (spot.status !== 201) throw new Error(`spot: ${spot.status} ${spot.text}`);
    sites.push(site);
    yardOf.set(site, yard.body.id);
    spotOf.set(site, spot.body.id);
    siteOfYard.set(yard.body.id, site);
  }
  const columns = (
    sqlite.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('trailer') as string[]
  ).map((c) => c.replace(/_+(.)/g, (_, x: string) => x.toUpperCase()));

  // The sites' edges: their copies of trailers, their stream positions, their clocks.
  const copies = new Map<string, Map<string, Fields>>(sites.map((s) => [s, new Map()]));
  const seqOf = new Map<string, number>();
  let lastMs = 0;
  let counter = 0;
  const hlc = (site: string) => {
    const now = Date.now();
    if (now > lastMs) [lastMs, counter] = [now, 0];
    else counter += 1;
    return `${String(lastMs).padStart(13, '0')}-${counter.toString(16).padStart(4, '0')}-${site}`;
  };
  let logSeq = Number(sqlite.prepare('SELECT coalesce(max(seq), 0) FROM change_log').pluck().get());
  const readLog = sqlite.prepare('SELECT peer, entity_id, data FROM change_log WHERE seq > ? ORDER BY seq');
  const yardOfTrailer = sqlite.prepare('SELECT yard_id FROM trailer WHERE id = ?').pluck();
  const counts = { rows: 0, bytes: 0, foreign: 0, dead: 0, fresh: 0 };

  /** The site's edge writes the trailer (its copy with `changes`) and the cloud applies it. */
  const send = (site: string, id: string, changes: Fields, fresh: boolean) => {
    const copy = copies.get(site)!;
    const at = hlc(site);
    const now = Date.now();
    const before = copy.get(id);
    let row: Fields;
    if (fresh || !before) {
      // A new trailer (or, under a rule that never let the site store it, the gate registering it).
      row = { ...BLANK_TRAILER, id, number: `T-${id}`, createdAt: now, updatedAt: now, ...changes };
      row.fieldHlc = JSON.stringify(Object.fromEntries(Object.keys(row).map((k) => [k, at])));
      row = { ...row, hlc: at, version: 1 };
    } else {
      const clocks = JSON.parse(String(before.fieldHlc ?? '{}'));
      for (const k of Object.keys(changes)) clocks[k] = at;
      row = {
        ...before,
        ...changes,
        updatedAt: now,
        hlc: at,
        version: Number(before.version) + 1,
        fieldHlc: JSON.stringify(clocks),
      };
    }
    copy.set(id, row);
    const seq = (seqOf.get(site) ?? 0) + 1;
    seqOf.set(site, seq);
    const outcome = applier.apply(site, {
      v: 1,
      site,
      stream: `stream-${site}`,
      from: seq,
      to: seq,
      schemaV: SCHEMA_VERSION,
      // As on the wire (JSON).
      rows: [{ seq, entity: 'trailer', id, op: 'upsert', hlc: at, data: JSON.parse(JSON.stringify(row)) }],
    });
    if (outcome.deadLetters > 0) throw new Error(`the cloud refused ${site}'s trailer ${id}`);
    // What the cloud logged for the sites, into their edges' copies.
    const logged = readLog.all(logSeq) as Array<{ peer: string; entity_id: string; data: string }>;
    const yardNow = yardOfTrailer.get(id) as string | null;
    for (const r of logged) {
      counts.rows += 1;
      if (fresh) counts.fresh += 1;
      counts.bytes += r.data.length;
      if (r.entity_id !== id) continue;
      if (yardNow === null || siteOfYard.get(yardNow) !== r.peer) counts.foreign += 1;
      const data = JSON.parse(r.data) as Fields;
      // The edge cannot store a trailer placed in a yard it does not hold: a dead letter there.
      if (typeof data.yardId === 'string' && siteOfYard.get(data.yardId) !== r.peer) {
        counts.dead += 1;
        continue;
      }
      const held = copies.get(r.peer)!;
      const local = held.get(id);
      if (!local) {
        const defaults = {
          loadStatus: 'unknown',
          sealNumber: null,
          yardId: null,
          locationId: null,
          arrivedAt: null,
        };
        held.set(id, { ...defaults, ...data });
        continue;
      }
      const merged = mergeShared(local, data, columns, 'id', false);
      if (merged.kind !== 'local') held.set(id, { ...local, ...merged.row });
    }
    logSeq += logged.length;
  };

  const inYard = new Map<string, Set<string>>(sites.map((s) => [s, new Set()]));
  const out = new Set<string>();
  let made = 0;
  const checkIn = (site: string, id: string, fresh: boolean, load: boolean) => {
    for (const held of inYard.values()) held.delete(id);
    out.delete(id);
    inYard.get(site)!.add(id);
    const changes: Fields = {
      yardId: yardOf.get(site),
      locationId: spotOf.get(site),
      arrivedAt: Date.now(),
      ...(load ? { loadStatus: random() < 0.5 ? 'loaded' : 'empty' } : {}),
    };
    send(site, id, changes, fresh);
  };
  const newId = () => `bench-${String(++made).padStart(7, '0')}`;

  for (const site of sites) for (let k = 0; k < START; k++) checkIn(site, newId(), true, true);
  const setupRows = counts.rows;
  Object.assign(counts, { rows: 0, bytes: 0, foreign: 0, dead: 0, fresh: 0 });
  console.log(`  ${root}: ${SITES} sites, ${made} trailers in their yards (setup: ${setupRows} log rows)`);

  const started = performance.now();
  for (let m = 0; m < MOVEMENTS; m++) {
    const site = pick(sites);
    const here = [...inYard.get(site)!];
    if (random() < 0.5 && here.length > 0) {
      const id = pick(here);
      inYard.get(site)!.delete(id);
      out.add(id);
      send(site, id, { yardId: null, locationId: null, arrivedAt: null }, false);
      continue;
    }
    const roll = random();
    const load = random() < 0.5;
    if (roll < NEW_SHARE || out.size === 0) checkIn(site, newId(), true, load);
    else if (roll < NEW_SHARE + FORCED_SHARE) {
      const elsewhere = pick(sites.filter((s) => s !== site && inYard.get(s)!.size > 0));
      checkIn(site, pick([...inYard.get(elsewhere)!]), false, load);
    } else checkIn(site, pick([...out]), false, load);
  }
  const seconds = (performance.now() - started) / 1000;
  await cloud.close();
  const perDay = (n: number) => (n / MOVEMENTS) * PER_DAY * SITES;
  return {
    commit: commitOf(root),
    sites: SITES,
    movements: MOVEMENTS,
    seconds: round(seconds),
    cloudRowsPerMovement: round(counts.rows / MOVEMENTS),
    newTrailerRowsPerMovement: round(counts.fresh / MOVEMENTS),
    cloudBytesPerMovement: Math.round(counts.bytes / MOVEMENTS),
    cloudRowsPerDay: Math.round(perDay(counts.rows)),
    foreignRowsPerEdgePerDay: Math.round(perDay(counts.foreign) / SITES),
    deadLettersPerEdgePerDay: Math.round(perDay(counts.dead) / SITES),
  };
}

/** A small seeded generator (mulberry32): the same workload for both rules. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function commitOf(root: string): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return process.env.BENCH_ROUTING_COMMIT ?? 'unknown';
  }
}

/** The other commit's tree, measured in a child process (its modules, not this tree's). */
function measureCommit(commit: string): Figures {
  const dir = mkdtempSync(join(tmpdir(), 'yard-routing-before-'));
  try {
    execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${dir}"`]);
    symlinkSync(resolve('node_modules'), join(dir, 'node_modules'));
    const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!], {
      env: {
        ...process.env,
        BENCH_ROUTING_ROOT: dir,
        BENCH_ROUTING_COMMIT: commit,
        BENCH_ROUTING_CHILD: '1',
      },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = child.stdout.split('\n').find((l) => l.startsWith('FIGURES '));
    process.stdout.write(child.stdout.replace(/^FIGURES .*$/m, ''));
    if (!line) throw new Error(`the run of ${commit} gave no figures (exit ${child.status})`);
    return JSON.parse(line.slice('FIGURES '.length)) as Figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (process.env.BENCH_ROUTING_CHILD) {
    const figures = await measure(process.env.BENCH_ROUTING_ROOT!);
    console.log(`FIGURES ${JSON.stringify(figures)}`);
    return;
  }
  const beforeRef = process.env.BENCH_ROUTING_BEFORE;
  console.log(
    `Routing fan-out: ${SITES} sites, ${MOVEMENTS} movements (${PER_DAY} a day per site extrapolated)`,
  );
  const before = beforeRef ? measureCommit(beforeRef) : undefined;
  const after = await measure(process.cwd());
  const rows: Array<[string, Figures]> = [
    ...(before ? [['before', before] as [string, Figures]] : []),
    ['after', after],
  ];
  console.log(
    '\n  rule    commit   cloud rows/movement (new trailers)  bytes/movement  cloud rows/day  foreign rows/edge/day  dead letters/edge/day',
  );
  for (const [name, f] of rows) {
    const perMovement = `${f.cloudRowsPerMovement} (${f.newTrailerRowsPerMovement})`;
    console.log(
      `  ${name.padEnd(7)} ${f.commit.padEnd(8)} ${perMovement.padStart(34)} ${String(f.cloudBytesPerMovement).padStart(15)} ${String(f.cloudRowsPerDay).padStart(15)} ${String(f.foreignRowsPerEdgePerDay).padStart(22)} ${String(f.deadLettersPerEdgePerDay).padStart(22)}`,
    );
  }
  const moved = round(after.cloudRowsPerMovement - after.newTrailerRowsPerMovement);
  const checks: Check[] = [
    [`cloud change-log rows per movement, new trailers' identities aside: ${moved} < 2`, moved < 2],
    [
      `no dead letters at the edges (${after.deadLettersPerEdgePerDay} a day each)`,
      after.deadLettersPerEdgePerDay === 0,
    ],
  ];
  if (before) {
    checks.push([
      `foreign rows per edge a day ${after.foreignRowsPerEdgePerDay} under 10% of before (${before.foreignRowsPerEdgePerDay})`,
      after.foreignRowsPerEdgePerDay < before.foreignRowsPerEdgePerDay / 10,
    ]);
  }
  finish('routing-fanout', { before, after }, checks);
}

await main();
