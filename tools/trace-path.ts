import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Path tracer: which product files one operation runs, and how often its path comes back to a file
 * it had already left (docs/architecture.md "Walkthroughs"). It starts a real app in-process (the
 * test helpers' startTestApp: a SQLite file, real HTTP on loopback, the simulated gate relays, a
 * fake ONVIF camera, an in-process MQTT broker for sync) and measures one operation of a path:
 *
 *   checkin     POST /api/movement with actuate and snapshot at an edge (a gate with a relay and a
 *               camera, a driver, a trailer and a truck)
 *   sync-batch  one batch of a site's rows at the cloud: message in -> link receiver -> applier -> ack out
 *   invoice     POST /api/billing/invoice: one invoice draft at a standalone edge
 *
 * Method (node:inspector, in this process, V8's own instruments; no code is changed or wrapped):
 *  - Files: V8 precise coverage (`Profiler.startPreciseCoverage({callCount, detailed})`) taken just
 *    before the operation (which resets the counters) and just after it: every function that ran
 *    during it has a count; its script is a file that ran. Exact.
 *  - Order: a CPU profile sampled every TRACE_INTERVAL_US (10) microseconds during the operation;
 *    each sample is reduced to its innermost product-file frame (a sample inside a library is
 *    charged to the product file that called it; one with no product frame is skipped), the
 *    sequence collapsed where a file repeats. A "return" is coming back to a file that already
 *    appeared earlier in that sequence after the path had left it. Sampling can miss a very short
 *    visit, so returns are a lower bound and vary a little between runs: the operation is measured
 *    TRACE_RUNS (5) times after one warm-up run (caches and lazy compilation as in a running
 *    service) and the run with the median returns is printed in full.
 * Product files: shared/, edge/, cloud/ (not node_modules, tests, migrations); lines are the
 * files' line counts. The app's response validation (a test-only option) is off.
 *
 * Run: npx tsx tools/trace-path.ts <checkin|sync-batch|invoice> [--json]
 */
const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const RUNS = Number(process.env.TRACE_RUNS ?? 5);
const INTERVAL_US = Number(process.env.TRACE_INTERVAL_US ?? 10);

/** Starts the measurement at `start()` and ends it at `stop()` (both synchronous: called inside a message handler too). */
export interface Probe {
  start(): void;
  stop(): void;
}

/** A path's world: `warmUp` does the operation once unmeasured; `run` does it once and calls the probe around it. */
export interface TracedPath {
  warmUp(): Promise<void>;
  run(probe: Probe): Promise<void>;
  close(): Promise<void>;
}

interface Coverage {
  result: Array<{ url: string; functions: Array<{ ranges: Array<{ count: number }> }> }>;
}
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { url: string }; children?: number[] }>;
  samples: number[];
}

export interface RunFigures {
  files: string[];
  lines: number;
  sequence: string[];
  returns: number;
  samples: number;
}

const session = new Session();
session.connect();

/** Synchronous on an in-thread session: the callback runs before post() returns. */
function post<T>(method: string, params?: object): T {
  let out: { err: Error | null; result?: T } | undefined;
  session.post(method, params ?? {}, (err, result) => {
    out = { err, result: result as T };
  });
  if (!out) throw new Error(`inspector ${method} did not answer synchronously`);
  if (out.err) throw out.err;
  return out.result as T;
}

/** The repository path of a product file, or undefined for anything else. */
export function productFile(url: string): string | undefined {
  if (!url.startsWith('file://')) return undefined;
  const path = relative(ROOT, fileURLToPath(url));
  if (!/^(shared|edge|cloud)\//.test(path)) return undefined;
  if (/(^|\/)(node_modules|test|migrations)\//.test(path)) return undefined;
  return path;
}

/** Collapses repeats and counts the comebacks to a file seen before. */
export function pathOf(samples: Array<string | undefined>): { sequence: string[]; returns: number } {
  const sequence: string[] = [];
  for (const file of samples) if (file && sequence.at(-1) !== file) sequence.push(file);
  const seen = new Set<string>();
  let returns = 0;
  for (const file of sequence) {
    if (seen.has(file)) returns++;
    seen.add(file);
  }
  return { sequence, returns };
}

function innermostProductFiles(profile: CpuProfile): Array<string | undefined> {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, string | undefined>();
  const fileOf = (id: number): string | undefined => {
    if (memo.has(id)) return memo.get(id);
    const own = productFile(byId.get(id)?.callFrame.url ?? '');
    const up = parent.get(id);
    const file = own ?? (up === undefined ? undefined : fileOf(up));
    memo.set(id, file);
    return file;
  };
  return profile.samples.map(fileOf);
}

const lineCounts = new Map<string, number>();
function linesOf(file: string): number {
  let n = lineCounts.get(file);
  if (n === undefined) {
    n = readFileSync(resolve(ROOT, file), 'utf8').split('\n').length - 1;
    lineCounts.set(file, n);
  }
  return n;
}

async function measure(path: TracedPath): Promise<RunFigures> {
  let coverage: Coverage | undefined;
  let profile: CpuProfile | undefined;
  let state: 'idle' | 'on' | 'done' = 'idle';
  await path.run({
    start() {
      if (state !== 'idle') throw new Error('probe started twice');
      state = 'on';
      post('Profiler.takePreciseCoverage'); // resets the counters
      post('Profiler.start');
    },
    stop() {
      if (state !== 'on') throw new Error('probe stopped before it started');
      state = 'done';
      profile = post<{ profile: CpuProfile }>('Profiler.stop').profile;
      coverage = post<Coverage>('Profiler.takePreciseCoverage');
    },
  });
  if (!coverage || !profile) throw new Error('the path never stopped the probe');
  const files = coverage.result
    .filter((s) => s.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0))
    .map((s) => productFile(s.url))
    .filter((f): f is string => f !== undefined)
    .sort();
  const { sequence, returns } = pathOf(innermostProductFiles(profile));
  return {
    files,
    lines: files.reduce((n, f) => n + linesOf(f), 0),
    sequence,
    returns,
    samples: profile.samples.length,
  };
}

const PATHS: Record<string, () => Promise<TracedPath>> = {
  checkin: async () => (await import('./trace-paths/checkin.js')).checkinPath(),
  'sync-batch': async () => (await import('./trace-paths/sync-batch.js')).syncBatchPath(),
  invoice: async () => (await import('./trace-paths/invoice.js')).invoicePath(),
};

async function main(): Promise<void> {
  const name = process.argv[2] ?? '';
  const open = PATHS[name];
  if (!open) {
    console.error(`usage: npx tsx tools/trace-path.ts <${Object.keys(PATHS).join('|')}> [--json]`);
    process.exit(2);
  }
  // Before the app's code is loaded, so that every function it compiles counts calls exactly.
  post('Profiler.enable');
  post('Profiler.setSamplingInterval', { interval: INTERVAL_US });
  post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
  const path = await open();
  const runs: RunFigures[] = [];
  try {
    await path.warmUp();
    for (let i = 0; i < RUNS; i++) runs.push(await measure(path));
  } finally {
    await path.close();
  }
  const median = [...runs].sort((a, b) => a.returns - b.returns)[Math.floor(runs.length / 2)]!;
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ path: name, runs, median }, null, 2));
    return;
  }
  console.log(`path ${name}: ${RUNS} runs after a warm-up, sampled every ${INTERVAL_US} µs`);
  for (const r of runs)
    console.log(`  files ${r.files.length}, lines ${r.lines}, returns ${r.returns} (${r.samples} samples)`);
  console.log(`\nmedian run: ${median.files.length} files, ${median.lines} lines, ${median.returns} returns`);
  console.log('\nfiles that ran (lines):');
  for (const f of median.files) console.log(`  ${f} (${linesOf(f)})`);
  console.log('\nsequence (innermost product file, repeats collapsed; * = a return):');
  const seen = new Set<string>();
  for (const f of median.sequence) {
    console.log(`  ${seen.has(f) ? '*' : ' '} ${f}`);
    seen.add(f);
  }
}

await main();
process.exit(0);
