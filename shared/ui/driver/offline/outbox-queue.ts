import { backoffMs, type Outcome } from './retry';

/** The shapes the outbox keeps (outbox.ts exports them to the screens). */
export type ActionKind = 'start' | 'complete' | 'cancel';

export interface DriverAction {
  /** Unique per action; the Idempotency-Key of every attempt. */
  id: string;
  kind: ActionKind;
  taskId: string;
  /** Cancel only: the quick reason. */
  reason?: string;
  /** When the driver tapped (ISO), shown beside a pending action. */
  at: string;
  /** How the screen named the task (e.g. the trailer and the move), for the pending list and conflicts. */
  label?: string;
  /** The driver who tapped: another driver logging in on a shared phone does not send it. */
  by?: string;
}

export interface Conflict {
  action: DriverAction;
  /** The server's answer for that task: code (e.g. invalid-transition, forbidden) and text. */
  code: string;
  detail: string;
}

/** What the outbox keeps on the phone: actions not yet answered, and refusals not yet dismissed. */
export interface OutboxState {
  pending: DriverAction[];
  conflicts: Conflict[];
}

export interface QueueDeps {
  store: {
    load(): Promise<OutboxState>;
    change(change: (state: OutboxState) => OutboxState): Promise<OutboxState>;
  };
  /** One attempt at one action, classified (retry.ts). */
  send(action: DriverAction): Promise<Outcome>;
  /** The driver now signed in with a usable token, or null while there is none (logged out, 401). */
  signedInAs(): string | null;
  /** Told of every change of the stored state (the screen's signals). */
  publish(state: OutboxState): void;
  /** Told of each action the server has answered (applied or refused). */
  settled?(action: DriverAction): void;
  /** Runs `work` with other tabs of the app kept out (Web Locks), or simply runs it. */
  exclusive?(work: () => Promise<void>): Promise<void>;
  setTimer?(run: () => void, ms: number): unknown;
  clearTimer?(timer: unknown): void;
  random?(): number;
  /** How long add() waits for the first attempt's answer (FIRST_TRY_WAIT_MS). */
  firstTryWaitMs?: number;
}

/** Longer than an answer on a working link takes; short enough that a hung link does not hold the driver. */
const FIRST_TRY_WAIT_MS = 2_000;

/**
 * The queue behind outbox.ts, with what it touches passed in (tested in
 * test/unit/ui/driver-outbox-queue.test.ts): actions are stored before any attempt and leave the
 * store only once the server answered; they go one at a time, oldest first; a "try again later"
 * answer stops the round and arms a timer that backs off; a 401 stops it until the next login.
 */
export class OutboxQueue {
  private running: Promise<void> | undefined;
  private again = false;
  private failures = 0;
  private timer: unknown;
  private readonly ready: Promise<void>;
  /** Stored actions on their first attempt: not "waiting for the link" (yet), so not published. */
  private readonly firstTry = new Set<string>();
  private last: OutboxState = { pending: [], conflicts: [] };

  constructor(private readonly deps: QueueDeps) {
    this.ready = deps.store.load().then(
      (state) => this.publish(state),
      () => undefined,
    );
  }

  /**
   * Stores the action and starts sending. Resolves once the first attempt has its answer, or after
   * `firstTryWaitMs` at most (the sending goes on regardless), and only then lists the action as
   * pending if it still is: on a working link the screen goes from the tap straight to the
   * server's state (no flash of "waiting"); with no link the attempt fails at once and the action
   * shows as waiting; a hung link holds the tap for no longer than that wait.
   */
  async add(action: DriverAction): Promise<void> {
    await this.ready;
    this.firstTry.add(action.id);
    try {
      this.publish(await this.deps.store.change((s) => ({ ...s, pending: [...s.pending, action] })));
      const round = this.replay();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const enough = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.deps.firstTryWaitMs ?? FIRST_TRY_WAIT_MS);
      });
      await Promise.race([round, enough]);
      clearTimeout(timer);
    } finally {
      this.firstTry.delete(action.id);
      this.publish(this.last);
    }
  }

  private publish(state: OutboxState): void {
    this.last = state;
    this.deps.publish(
      this.firstTry.size === 0
        ? state
        : { ...state, pending: state.pending.filter((a) => !this.firstTry.has(a.id)) },
    );
  }

  async dismiss(actionId: string): Promise<void> {
    await this.ready;
    this.publish(
      await this.deps.store.change((s) => ({
        ...s,
        conflicts: s.conflicts.filter((c) => c.action.id !== actionId),
      })),
    );
  }

  /** The last round stopped on "no answer, try later" and a timer waits to try again. */
  get waitingForLink(): boolean {
    return this.failures > 0;
  }

  /** The link is back (the browser says so, or another call got an answer): try at once, and restart the backoff. */
  online(): Promise<void> {
    this.failures = 0;
    return this.replay();
  }

  /** Sends what is queued, oldest first, until the queue is empty or the link or the login fails. */
  replay(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.clearTimer();
    this.running = (async () => {
      await this.ready;
      do {
        this.again = false;
        const drain = () => this.drain();
        await (this.deps.exclusive ? this.deps.exclusive(drain) : drain());
      } while (this.again);
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async drain(): Promise<void> {
    // Another tab may have sent or queued actions since this one last looked.
    let state = await this.deps.store.load();
    this.publish(state);
    for (;;) {
      const me = this.deps.signedInAs();
      if (!me) return; // the next login calls replay()
      const next = state.pending.find((a) => !a.by || a.by === me);
      if (!next) {
        this.failures = 0;
        return;
      }
      const outcome = await this.deps.send(next);
      if (outcome.type === 'login') return;
      if (outcome.type === 'retry') {
        this.failures += 1;
        const wait = outcome.afterMs ?? backoffMs(this.failures, (this.deps.random ?? Math.random)());
        this.clearTimer();
        this.timer = (this.deps.setTimer ?? setTimeout)(() => void this.replay(), wait);
        return;
      }
      this.failures = 0;
      state = await this.deps.store.change((s) => ({
        pending: s.pending.filter((a) => a.id !== next.id),
        conflicts:
          outcome.type === 'conflict' && !s.conflicts.some((c) => c.action.id === next.id)
            ? [...s.conflicts, { action: next, code: outcome.code, detail: outcome.detail }]
            : s.conflicts,
      }));
      this.publish(state);
      this.deps.settled?.(next);
    }
  }

  private clearTimer(): void {
    if (this.timer === undefined) return;
    (this.deps.clearTimer ?? ((t) => clearTimeout(t as ReturnType<typeof setTimeout>)))(this.timer);
    this.timer = undefined;
  }
}
