import { effect, signal } from '@preact/signals';
import { api } from '../../common/api/client';
import { session } from '../../common/auth';
import {
  type ActionKind,
  type Conflict,
  type DriverAction,
  OutboxQueue,
  type OutboxState,
} from './outbox-queue';
import { OutboxStore } from './outbox-store';
import { type Answer, classify, type Outcome } from './retry';

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
 * retry.ts, the queue itself in outbox-queue.ts; this file wires them to the API and the session.
 */
export type { ActionKind, Conflict, DriverAction };

/** Actions not yet answered by the server, oldest first. */
export const pending = signal<DriverAction[]>([]);
/** Actions the server refused for that task; the screen shows them until dismissed. */
export const conflicts = signal<Conflict[]>([]);
/** The last action the server answered (applied or refused): a screen may read its tasks again. */
export const lastSettled = signal<DriverAction | null>(null);

/** Longer than any answer on a working link; a request hung on dying Wi-Fi counts as no answer. */
const SEND_TIMEOUT_MS = 15_000;
const LOCK = 'yard-driver-outbox';

const queue = new OutboxQueue({
  store: new OutboxStore(),
  send,
  signedInAs: () => {
    const principal = session.principal.value;
    return principal && !session.expired.value ? (principal.driverId ?? principal.id) : null;
  },
  publish(state: OutboxState) {
    pending.value = state.pending;
    conflicts.value = state.conflicts;
  },
  settled(action) {
    lastSettled.value = action;
  },
  // One tab at a time sends (the others would only get the replayed answers).
  exclusive: async (work) => {
    if (navigator.locks) await navigator.locks.request(LOCK, work);
    else await work();
  },
});

/**
 * Records the action and sends it (now, or when the link is back). Resolves once it is stored and
 * its first attempt has an answer (applied, refused or no link), or after 2 s of a hung link; from
 * then until the server answers it is listed in `pending` (on a working link, never). `label`
 * names the task for the driver in the pending list and in a conflict.
 */
export function act(kind: ActionKind, taskId: string, reason?: string, label?: string): Promise<void> {
  const principal = session.principal.value;
  const by = principal ? (principal.driverId ?? principal.id) : undefined;
  return queue.add({
    id: newActionId(),
    kind,
    taskId,
    ...(reason ? { reason } : {}),
    at: new Date().toISOString(),
    ...(label ? { label } : {}),
    ...(by ? { by } : {}),
  });
}

export function dismissConflict(id: string): Promise<void> {
  return queue.dismiss(id);
}

/** Sends what waits now (also what the timers and events below call). */
export function replay(): Promise<void> {
  return queue.replay();
}

async function send(action: DriverAction): Promise<Outcome> {
  // tappedAt: the task's times are when the driver tapped, not when the link came back to send it
  // (docs/domain.md "Working a task").
  const body = {
    taskIds: [action.taskId],
    tappedAt: action.at,
    ...(action.reason ? { reason: action.reason } : {}),
  };
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
      replayed: response.headers.get('idempotent-replayed') === 'true',
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
  addEventListener('online', () => void queue.online());
  // The browser's `online` does not come when the Wi-Fi stayed up but the server was out of reach
  // (a dead access point uplink in the far corner): any other call of the app that gets an answer
  // (the heartbeat, a location batch, the task list) says the link is back.
  api.use({
    onResponse({ request, response }) {
      if (queue.waitingForLink && response.status < 500 && !request.headers.has('Idempotency-Key'))
        void queue.online();
      return response;
    },
  });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void queue.replay();
  });
  // At page load when signed in, and after each login (also the dialog after a 401).
  effect(() => {
    if (session.principal.value && !session.expired.value) queueMicrotask(() => void queue.replay());
  });
}

if (typeof document !== 'undefined') startReplaying();
