import { describe, expect, it } from 'vitest';
import {
  type DriverAction,
  OutboxQueue,
  type OutboxState,
  type QueueDeps,
} from '../../../shared/ui/driver/offline/outbox-queue';
import { OutboxStore } from '../../../shared/ui/driver/offline/outbox-store';
import type { Outcome } from '../../../shared/ui/driver/offline/retry';

/** No IndexedDB in node: the store keeps its state in memory, the same code path around it. */
function world(answers: (action: DriverAction, attempt: number) => Outcome) {
  const store = new OutboxStore();
  const sent: { id: string; kind: string; taskId: string; storedFirst: boolean }[] = [];
  const timers: { run: () => void; ms: number }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let published: OutboxState = { pending: [], conflicts: [] };
  const everPending = new Set<string>();
  const settled: string[] = [];
  const state = { me: 'driver-1' as string | null };
  const deps: QueueDeps = {
    store,
    async send(action) {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const stored = (await store.load()).pending.some((a) => a.id === action.id);
      sent.push({ id: action.id, kind: action.kind, taskId: action.taskId, storedFirst: stored });
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      return answers(action, sent.filter((s) => s.id === action.id).length);
    },
    signedInAs: () => state.me,
    publish: (s) => {
      published = s;
      for (const a of s.pending) everPending.add(a.id);
    },
    settled: (a) => settled.push(a.id),
    setTimer: (run, ms) => timers.push({ run, ms }),
    clearTimer: () => undefined,
    random: () => 0.999999,
  };
  return {
    store,
    deps,
    queue: new OutboxQueue(deps),
    sent,
    timers,
    settled,
    state,
    published: () => published,
    everPending,
    maxInFlight: () => maxInFlight,
  };
}

let n = 0;
function action(kind: DriverAction['kind'], taskId: string, by = 'driver-1'): DriverAction {
  n++;
  return { id: `key-${n}`, kind, taskId, at: new Date(Date.UTC(2026, 3, 1, 6, n)).toISOString(), by };
}

describe('the outbox queue', () => {
  it('sends one at a time, oldest first, each stored before its attempt, and drops each once answered', async () => {
    const w = world(() => ({ type: 'applied' }));
    const a = [action('start', 'T1'), action('complete', 'T1'), action('cancel', 'T2')];
    await Promise.all(a.map((x) => w.queue.add(x)));
    await w.queue.replay();
    expect(w.sent.map((s) => [s.kind, s.taskId])).toEqual([
      ['start', 'T1'],
      ['complete', 'T1'],
      ['cancel', 'T2'],
    ]);
    expect(w.sent.every((s) => s.storedFirst)).toBe(true);
    expect(w.maxInFlight()).toBe(1);
    expect(w.published()).toEqual({ pending: [], conflicts: [] });
    expect(w.settled).toEqual(a.map((x) => x.id));
  });

  it('a "try later" answer keeps the action and those after it, backs off, and resends with the same key', async () => {
    let down = true;
    const w = world(() => (down ? { type: 'retry' } : { type: 'applied' }));
    const first = action('complete', 'T1');
    const second = action('cancel', 'T2');
    await w.queue.add(first);
    await w.queue.add(second);
    await w.queue.replay();
    expect(w.published().pending.map((p) => p.id)).toEqual([first.id, second.id]);
    expect(w.sent.every((s) => s.id === first.id)).toBe(true); // never past the one that failed
    expect(w.queue.waitingForLink).toBe(true); // another call's answer may bring the replay forward
    const waits = w.timers.map((t) => t.ms);
    expect(waits.at(-1)).toBeGreaterThan(waits[0] as number); // backs off
    down = false;
    w.timers.at(-1)?.run();
    await w.queue.replay();
    expect(w.published().pending).toEqual([]);
    expect(new Set(w.sent.map((s) => s.id))).toEqual(new Set([first.id, second.id]));
    expect(w.sent.filter((s) => s.id === second.id)).toHaveLength(1);
    expect(w.queue.waitingForLink).toBe(false);
  });

  it('honours the wait the server asked for', async () => {
    const w = world(() => ({ type: 'retry', afterMs: 42_000 }));
    await w.queue.add(action('start', 'T1'));
    await w.queue.replay();
    expect(w.timers.at(-1)?.ms).toBe(42_000);
  });

  it('a refusal becomes a conflict, kept until dismissed; the queue goes on with the next action', async () => {
    const w = world((a) =>
      a.taskId === 'T-reassigned'
        ? { type: 'conflict', code: 'forbidden', detail: 'The task is not assigned to you.' }
        : { type: 'applied' },
    );
    const refused = action('start', 'T-reassigned');
    const fine = action('cancel', 'T2');
    await w.queue.add(refused);
    await w.queue.add(fine);
    await w.queue.replay();
    expect(w.published()).toEqual({
      pending: [],
      conflicts: [{ action: refused, code: 'forbidden', detail: 'The task is not assigned to you.' }],
    });
    // As after a reload: a new queue over the same store still has the conflict.
    const again = new OutboxQueue({ ...w.deps, publish: () => undefined });
    await again.replay();
    expect((await w.store.load()).conflicts).toHaveLength(1);
    await w.queue.dismiss(refused.id);
    expect(w.published().conflicts).toEqual([]);
  });

  it('a 401 keeps the action until the next login, then sends it', async () => {
    let tokenOk = false;
    const w = world(() => (tokenOk ? { type: 'applied' } : { type: 'login' }));
    const a = action('complete', 'T1');
    await w.queue.add(a);
    await w.queue.replay();
    expect(w.published().pending).toEqual([a]);
    expect(w.timers).toEqual([]); // no polling while the login is missing
    w.state.me = null; // the app shows the login
    await w.queue.replay();
    const attempts = w.sent.length;
    expect(attempts).toBeGreaterThan(0);
    tokenOk = true;
    w.state.me = 'driver-1';
    await w.queue.replay();
    expect(w.sent.length).toBe(attempts + 1);
    expect(w.published().pending).toEqual([]);
  });

  it("another driver signed in on the same phone never sends the first driver's actions", async () => {
    const w = world(() => ({ type: 'applied' }));
    const hers = action('complete', 'T1', 'driver-1');
    const his = action('start', 'T9', 'driver-2');
    w.state.me = null; // she tapped, then logged out before the link came back
    await w.queue.add(hers);
    w.state.me = 'driver-2';
    await w.queue.add(his);
    await w.queue.replay();
    expect(w.sent.map((s) => s.id)).toEqual([his.id]);
    expect(w.published().pending).toEqual([hers]);
  });

  it('add() resolves once the first attempt is answered: online, the action is never shown as waiting', async () => {
    const w = world(() => ({ type: 'applied' }));
    await w.queue.add(action('start', 'T1'));
    expect(w.sent.map((s) => s.kind)).toEqual(['start']);
    expect(w.published().pending).toEqual([]);
    expect(w.everPending.size).toBe(0);
  });

  it('offline, the action is shown as waiting as soon as its first attempt fails', async () => {
    const w = world(() => ({ type: 'retry' }));
    const a = action('complete', 'T1');
    await w.queue.add(a);
    expect(w.published().pending).toEqual([a]);
  });

  it('a hung link holds add() no longer than the first-try wait; the action stays pending meanwhile', async () => {
    let answer: (o: Outcome) => void = () => undefined;
    const w = world(() => ({ type: 'applied' }));
    w.deps.send = () => new Promise<Outcome>((resolve) => (answer = resolve));
    const queue = new OutboxQueue({ ...w.deps, firstTryWaitMs: 20 });
    const a = action('complete', 'T1');
    const started = Date.now();
    await queue.add(a);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(w.published().pending).toEqual([a]);
    answer({ type: 'applied' });
    await queue.replay();
    expect(w.published().pending).toEqual([]);
  });
});
