import { useCallback, useRef, useState } from 'preact/hooks';
import { ProblemError } from './api/problem';

export interface Submit<A extends unknown[], R> {
  /** True while the action runs: the submit button is disabled, a second press does nothing. */
  busy: boolean;
  /** The refusal of the last run (null after a success or before any run). */
  problem: ProblemError | null;
  /** Something that is not an answer of the API (network down, a bug): say "try again". */
  failed: boolean;
  /** Runs the action once at a time; resolves to its result, or undefined when it was refused. */
  run: (...args: A) => Promise<R | undefined>;
  /** Forget the last refusal (the person edited the form). */
  clear: () => void;
}

/**
 * The busy / refused state of one form or button, in one place: every screen that sends something
 * shows the same things (a disabled button while it runs, the problem in words after). The action
 * throws ProblemError for a refusal (common/api/client.ts `call`).
 */
export function useSubmit<A extends unknown[], R>(action: (...args: A) => Promise<R>): Submit<A, R> {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ProblemError | null>(null);
  const [failed, setFailed] = useState(false);
  // A ref, not state: a double click lands before the re-render that disables the button.
  const running = useRef(false);
  const latest = useRef(action);
  latest.current = action;
  const run = useCallback(async (...args: A): Promise<R | undefined> => {
    if (running.current) return undefined;
    running.current = true;
    setBusy(true);
    setProblem(null);
    setFailed(false);
    try {
      return await latest.current(...args);
    } catch (err) {
      if (err instanceof ProblemError) setProblem(err);
      else setFailed(true);
      return undefined;
    } finally {
      running.current = false;
      setBusy(false);
    }
  }, []);
  const clear = useCallback(() => {
    setProblem(null);
    setFailed(false);
  }, []);
  return { busy, problem, failed, run, clear };
}
