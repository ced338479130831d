import { effect, signal } from '@preact/signals';
import { api } from '../../common/api/client';
import { session } from '../../common/auth';
import { type OutboxState, OutboxStore } from './outbox-store';
import { type Answer, backoffMs, classify, type Outcome } from './retry';

/**
 * The driver's task actions (start, complete, cancel) go through here, never straight to the API:
 * each gets its own id (sent as the Idempotency-Key of every attempt), is stored in IndexedDB
 * before the first attempt, shown as pending meanwhile, and dropped only once the server has
 * answered. Actions go one at a time, oldest first (a Complete queued after its Start must reach
 * the server after it), and are replayed when the browser says it is online again, when the page
 * loads or comes back to the front, after a new login, and on a timer that backs off while the
 * link stays down. A replay never applies twice: the server answers a key it has seen with the
 * answer it gave. A task reassigned or cancelled meanwhile comes back as a conflict, kept (also
 * over reloads) until the driver dismisses it. What counts as done, refused or "try again" is in
 * retry.ts.
 */
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

/** Actions not yet answered by the server, oldest first. */
export const pending = signal<DriverAction[]>([]);
/** Actions the server refused for that task; the screen shows them until dismissed. */
export const conflicts = signal<Conflict[]>([]);
/** The last action the server applied (or refused): the screen may reload its tasks on a change. */
export const lastSettled = signal<DriverAction | null>(null);

/** Longer than any answer on a working link; a hung request on dying Wi-Fi counts as no answer. */
const SEND_TIMEOUT_MS = 15_000;
const LOCK = 'yard-driver-outbox';

const store = new OutboxStore();
const ready = store.load().then(publish, () => undefined);

function publish(state: OutboxState): void {
  pending.value = state.pending;
  conflicts.value = state.conflicts;
}

/**
 * Records the action and sends it (now, or when the link is back). Resolves once it is stored.
 * `label` names the task for the driver in the pending list and in a conflict.
 */
export async function act(kind: ActionKind, taskId: string, reason?: string, label?: string): Promise<void> {
  await ready;
  const principal = session.principal.value;
  const by = principal ? (principal.driverId ?? principal.id) : undefined;
  const action: DriverAction = {
    id: newActionId(),
    kind,
    taskId,
    ...(reason ? { reason } : {}),
    at: new Date().toISOString(),
    ...(label ? { label } : {}),
    ...(by ? { by } : {}),
  };
  publish(await store.change((s) => ({ ...s, pending: [...s.pending, action] })));
  void replay();
}

export async function dismissConflict(id: string): Promise<void> {
  await ready;
  publish(await store.change((s) => ({ ...s, conflicts: s.conflicts.filter((c) => c.action.id !== id) })));
}

let running: Promise<void> | undefined;
let again = false;
let failures = 0;
let timer: ReturnType<typeof setTimeout> | undefined;

/** Sends what is queued, oldest first, until the queue is empty or the link or the login fails. */
export function replay(): Promise<void> {
  if (running) {
    again = true;
    return running;
  }
  clearTimeout(timer);
  running = (async () => {
    await ready;
    do {
      again = false;
      // One tab at a time sends (the others would only get the replayed answers).
      if (navigator.locks) await navigator.locks.request(LOCK, drain);
      else await drain();
    } while (again);
  })().finally(() => {
    running = undefined;
  });
  return running;
}

async function drain(): Promise<void> {
  // Another tab may have sent or queued actions since this one last looked.
  publish(await store.load());
  for (;;) {
    const principal = session.principal.value;
    if (!principal || session.expired.value) return; // the login brings it back (effect below)
    const me = principal.driverId ?? principal.id;
    const next = pending.value.find((a) => !a.by || a.by === me);
    if (!next) {
      failures = 0;
      return;
    }
    const outcome = await send(next);
    if (outcome.type === 'login') return;
    if (outcome.type === 'retry') {
      failures += 1;
      clearTimeout(timer);
      timer = setTimeout(() => void replay(), outcome.afterMs ?? backoffMs(failures, Math.random()));
      return;
    }
    failures = 0;
    publish(
      await store.change((s) => ({
        pending: s.pending.filter((a) => a.id !== next.id),
        conflicts:
          outcome.type === 'conflict' && !s.conflicts.some((c) => c.action.id === next.id)
            ? [...s.conflicts, { action: next, code: outcome.code, detail: outcome.detail }]
            : s.conflicts,
      })),
    );
    lastSettled.value = next;
  }
}

async function send(action: DriverAction): Promise<Outcome> {
  const body = { taskIds: [action.taskId], ...(action.reason ? { reason: action.reason } : {}) };
  let answer: Answer | 'network-error';
  try {
    const { data, error, response } = await api.POST(`/api/yard-task/driver/${action.kind}`, {
      body,
      headers: { 'Idempotency-Key': action.id },
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    } as never);
    answer = {
      status: response.status,
      body: response.ok ? data : error,
      retryAfter: response.headers.get('retry-after'),
    };
  } catch {
    answer = 'network-error';
  }
  return classify(answer, action.taskId);
}

/** A v4 UUID; randomUUID exists only in a secure context, getRandomValues everywhere. */
function newActionId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function startReplaying(): void {
  addEventListener('online', () => {
    failures = 0;
    void replay();
  });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void replay();
  });
  // Signed in, or back from the login dialog after a 401: send what waited for it.
  effect(() => {
    if (session.principal.value && !session.expired.value) queueMicrotask(() => void replay());
  });
}

if (typeof document !== 'undefined') startReplaying();
