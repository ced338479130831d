import type { Clock } from '../clock.js';
import { RawJson } from './raw-json.js';

/** How old a shared answer may be: dwell times move on with the clock even when nothing is written. */
const MAX_AGE_MS = 1_000;
/** Beyond this many remembered answers, the old ones are dropped. */
const MAX_ANSWERS = 500;

interface Answer {
  version: number;
  at: number;
  text: Promise<RawJson>;
}

/**
 * Answers that dashboards polling together share: every open dashboard asks the same questions
 * (the trailers per yard and carrier of every yard is half a megabyte of JSON at 200 sites), and building and writing
 * each answer is work on the one event loop that the gate's and the drivers' requests wait behind.
 * An answer is shared while nothing it is built from changed (`changed()`: the dashboard's rollups
 * call it in every write that touches them) and for at most a second (dwell grows with the clock);
 * requests arriving while it is being built wait for that one build. So the figures are exact after
 * every change and never more than a second behind the clock. Only for answers that have such a
 * change signal: an API client reading back its own write must see it.
 */
export class SharedAnswers {
  private version = 0;
  private readonly answers = new Map<string, Answer>();

  constructor(private readonly clock: Clock) {}

  /**
   * A rollup changed (or may have: a rolled-back write only costs a rebuild). A bound function, so
   * that the rollups observer can be handed it as it is.
   */
  readonly changed = (): void => {
    this.version++;
  };

  /** The shared answer for `key` (it must name everything the answer depends on, the principal's scope too). */
  answer(key: string, build: () => Promise<unknown>): Promise<RawJson> {
    const now = this.clock.now();
    const kept = this.answers.get(key);
    if (kept && kept.version === this.version && now - kept.at < MAX_AGE_MS) return kept.text;
    const text = build().then((body) => new RawJson(JSON.stringify(body)));
    const entry = { version: this.version, at: now, text };
    this.answers.set(key, entry);
    // A refusal (404, 403) or a failure is not shared: the next request asks again.
    text.catch(() => {
      if (this.answers.get(key) === entry) this.answers.delete(key);
    });
    if (this.answers.size > MAX_ANSWERS) this.dropOld(now);
    return text;
  }

  private dropOld(now: number): void {
    for (const [key, a] of this.answers) {
      if (a.version !== this.version || now - a.at >= MAX_AGE_MS) this.answers.delete(key);
    }
  }
}
