import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { register } from 'node:module';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collapse, moduleOf, returnsOf, stepsOf, withoutLeaves } from './trace-paths/sequence.js';

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
 * Method (both exact; the app's code on disk is not changed):
 *  - Files: V8 precise coverage through node:inspector (`Profiler.startPreciseCoverage({callCount,
 *    detailed})`), taken just before the operation (which resets the counters) and just after it:
 *    every function that ran during it has a count, and its script is a file that ran.
 *  - Order: every entry into a product function, in order. As each product module is loaded, a
 *    module hook (trace-paths/entry-hooks.mjs) puts one call at the start of every function body
 *    naming its file; the tracer keeps the calls made during the operation, collapsed where a file
 *    repeats. A "return" is entering a file again after the path had left it for another one
 *    (service -> gate station -> cameras -> gate station counts one). Coming back into a caller
 *    after an await or a call returns is not an entry, so an orchestrator that calls each step in
 *    turn is not counted between its steps; a step that calls back into the orchestrator, or into
 *    an earlier step's file, is. Shared helpers (clock, ids, the change capture) count too.
 *    (A CPU profile sampled every 10 µs was tried first: on a busy two-core machine it took 5 to
 *    500 samples of an operation and its returns varied from 0 to 19 between runs.)
 * The operation is done once unmeasured first (caches and lazy compilation as in a running
 * service), then measured TRACE_RUNS (3) times; the figures of the runs are printed, the last in full.
 * Product files: shared/, edge/, cloud/ (not node_modules, tests, migrations); lines are the
 * files' line counts. The app's response validation (a test-only option) is off.
 *
 * Run: npx tsx tools/trace-path.ts <checkin|sync-batch|invoice> [--json]
 * TRACE_ORCHESTRATOR=<file> lists the files another file called directly (default: the path's own).
 */
const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const RUNS = Number(process.env.TRACE_RUNS ?? 3);

/** Starts the measurement at `start()` and ends it at `stop()` (both synchronous: called inside a message handler too). */
export interface Probe {
  start(): void;
  stop(): void;
}

/** A path's world: `warmUp` does the operation once unmeasured; `run` does it once and calls the probe around it. */
export interface TracedPath {
  /** The file whose function runs the path's steps (its direct calls are listed). */
  orchestrator?: string;
  warmUp(): Promise<void>;
  run(probe: Probe): Promise<void>;
  close(): Promise<void>;
}

interface Coverage {
  result: Array<{ url: string; functions: Array<{ ranges: Array<{ count: number }> }> }>;
}

export interface RunFigures {
  files: string[];
  lines: number;
  sequence: string[];
  returns: number;
  /** The files that called another product file, in order of entry, and the returns among them. */
  pathSequence: string[];
  pathReturns: number;
  /** The same at module level (movements, cameras, hardware, sync, db...). */
  modules: string[];
  moduleReturns: number;
  /** Calls back into a file still on the stack (A -> B -> A), as `caller -> file`. */
  callBacks: string[];
  /** The files the path's orchestrator called, in order (repeats collapsed, leaf helpers left out). */
  steps: string[];
  /** Entries into the orchestrator's file or an earlier step's file once a step has run (`caller -> file`). */
  stepBacks: string[];
  /** Entries into product functions during the operation. */
  calls: number;
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

/**
 * What the instrumented modules call (trace-paths/entry-hooks.mjs), kept while a probe runs: the
 * files entered in order, and which files called into another product file (the caller is read
 * from the stack, async frames included, when the path enters a file other than the last one).
 */
const entries = {
  on: false,
  sequence: [] as string[],
  callers: new Set<string>(),
  /** Each entry into another file: who called it. */
  direct: [] as Array<{ caller: string; file: string }>,
  /** Entries into a file that is still on the stack below its caller (A -> B -> A). */
  callBacks: [] as string[],
  calls: 0,
};
const FRAME_FILE = /\(((?:file:\/\/)?\/[^)]+?):\d+:\d+\)|at (?:async )?((?:file:\/\/)?\/\S+?):\d+:\d+/;
(globalThis as { __tracePathEnter?: (file: string) => void }).__tracePathEnter = (file) => {
  if (!entries.on) return;
  entries.calls++;
  if (entries.sequence.at(-1) === file) return;
  entries.sequence.push(file);
  const frames = (new Error().stack ?? '').split('\n').map(productFrame);
  const below = frames.slice(frames.indexOf(file) + 1).filter((f): f is string => f !== undefined);
  let k = 0;
  while (below[k] === file) k++;
  const caller = below[k];
  if (!caller) return;
  entries.callers.add(caller);
  entries.direct.push({ caller, file });
  if (below.slice(k + 1).includes(file)) entries.callBacks.push(`${caller} -> ${file}`);
};
Error.stackTraceLimit = 60;

function productFrame(line: string): string | undefined {
  const m = FRAME_FILE.exec(line);
  const url = m?.[1] ?? m?.[2];
  if (!url) return undefined;
  return productFile(url.startsWith('file://') ? url : `file://${url}`);
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
  let state: 'idle' | 'on' | 'done' = 'idle';
  await path.run({
    start() {
      if (state !== 'idle') throw new Error('probe started twice');
      state = 'on';
      post('Profiler.takePreciseCoverage'); // resets the counters
      Object.assign(entries, {
        on: true,
        sequence: [],
        callers: new Set(),
        direct: [],
        callBacks: [],
        calls: 0,
      });
    },
    stop() {
      if (state !== 'on') throw new Error('probe stopped before it started');
      state = 'done';
      entries.on = false;
      coverage = post<Coverage>('Profiler.takePreciseCoverage');
    },
  });
  if (!coverage) throw new Error('the path never stopped the probe');
  const files = coverage.result
    .filter((s) => s.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0))
    .map((s) => productFile(s.url))
    .filter((f): f is string => f !== undefined)
    .sort();
  const sequence = [...entries.sequence];
  const pathSequence = withoutLeaves(sequence, entries.callers);
  const modules = collapse(pathSequence.map(moduleOf));
  return {
    callBacks: [...entries.callBacks],
    ...stepsOf(entries.direct, path.orchestrator, entries.callers),
    modules,
    moduleReturns: returnsOf(modules),
    pathSequence,
    pathReturns: returnsOf(pathSequence),
    files,
    lines: files.reduce((n, f) => n + linesOf(f), 0),
    sequence,
    returns: returnsOf(sequence),
    calls: entries.calls,
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
  // Before the app's code is loaded: every product function reports its entries, and every
  // function it compiles counts calls exactly.
  register('./trace-paths/entry-hooks.mjs', import.meta.url, { data: { root: ROOT } });
  post('Profiler.enable');
  post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
  const path = await open();
  if (process.env.TRACE_ORCHESTRATOR) path.orchestrator = process.env.TRACE_ORCHESTRATOR;
  const runs: RunFigures[] = [];
  try {
    await path.warmUp();
    for (let i = 0; i < RUNS; i++) runs.push(await measure(path));
  } finally {
    await path.close();
  }
  const last = runs.at(-1)!;
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ path: name, runs }, null, 2));
    return;
  }
  console.log(`path ${name}: ${RUNS} runs after one unmeasured`);
  for (const r of runs)
    console.log(
      `  files ${r.files.length}, lines ${r.lines}, returns ${r.pathReturns} (leaf helpers too: ${r.returns}; between modules: ${r.moduleReturns}), call-backs ${r.callBacks.length}, back to an earlier step ${r.stepBacks.length} (${r.calls} calls)`,
    );
  console.log(
    `\nlast run: ${last.files.length} files, ${last.lines} lines, ${last.pathReturns} returns (leaf helpers too: ${last.returns}; between modules: ${last.moduleReturns}), call-backs ${last.callBacks.length}, back to an earlier step ${last.stepBacks.length}`,
  );
  console.log(`\nmodules in order: ${last.modules.join(' -> ')}`);
  if (path.orchestrator) {
    console.log(`\n${path.orchestrator} called, in order (its steps):\n  ${last.steps.join('\n  ')}`);
    console.log(
      `\nback into the orchestrator or an earlier step:\n  ${last.stepBacks.join('\n  ') || 'none'}`,
    );
  }
  console.log(
    `\ncall-backs (a file entered again while still on the stack):\n  ${last.callBacks.join('\n  ') || 'none'}`,
  );
  console.log('\nfiles that ran (lines):');
  for (const f of last.files) console.log(`  ${f} (${linesOf(f)})`);
  console.log('\nentries in order, leaf helpers left out (repeats collapsed; * = a return):');
  const seen = new Set<string>();
  for (const f of last.pathSequence) {
    console.log(`  ${seen.has(f) ? '*' : ' '} ${f}`);
    seen.add(f);
  }
}

await main();
process.exit(0);
