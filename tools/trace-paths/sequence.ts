/* The path tracer's arithmetic on the sequence of files it recorded (tools/trace-path.ts). */

/** The module of a file: shared/modules/<name>, else its folder (shared/sync, shared/db, edge/hardware). */
export function moduleOf(file: string): string {
  const m = /^shared\/modules\/[^/]+/.exec(file);
  return m ? m[0] : file.slice(0, file.lastIndexOf('/'));
}

/** Collapses repeats. */
export function collapse(sequence: string[]): string[] {
  return sequence.filter((f, i) => sequence[i - 1] !== f);
}

/** Counts the comebacks to a file seen before in a sequence without repeats. */
export function returnsOf(sequence: string[]): number {
  const seen = new Set<string>();
  let returns = 0;
  for (const file of sequence) {
    if (seen.has(file)) returns++;
    seen.add(file);
  }
  return returns;
}

/**
 * The sequence without the leaf helpers (files that called no other product file during the
 * operation: the clock, ids, the settings registry...), collapsed again: the path's own files.
 */
export function withoutLeaves(sequence: string[], callers: Set<string>): string[] {
  const out: string[] = [];
  for (const f of sequence) if (callers.has(f) && out.at(-1) !== f) out.push(f);
  return out;
}

/**
 * The orchestrator's steps (the non-leaf files it called directly, in order) and the entries that
 * go back: the orchestrator calling an earlier step again, or any file entering the orchestrator's
 * file or an earlier step's file after that step (docs/architecture.md: each step once, in order).
 */
export function stepsOf(
  direct: Array<{ caller: string; file: string }>,
  orchestrator: string | undefined,
  callers: Set<string>,
): { steps: string[]; stepBacks: string[] } {
  const steps: string[] = [];
  const stepBacks: string[] = [];
  if (!orchestrator) return { steps, stepBacks };
  const done = new Set<string>();
  for (const { caller, file } of direct) {
    const isStep = caller === orchestrator && callers.has(file);
    if (isStep && steps.at(-1) === file) continue;
    if (done.has(file) || (file === orchestrator && steps.length > 0)) stepBacks.push(`${caller} -> ${file}`);
    if (isStep) {
      const current = steps.at(-1);
      if (current) done.add(current);
      steps.push(file);
    }
  }
  return { steps, stepBacks };
}
