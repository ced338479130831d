import { signal } from '@preact/signals';
import { session } from './auth';
import { EventStream, type StreamEvent, type StreamState } from './events';

type Listener = (event: StreamEvent) => void;

const listeners = new Set<Listener>();
const resyncs = new Set<() => void>();
/** The stream's state, for the header ("live", "reconnecting"). */
export const liveState = signal<StreamState>('ended');

let stream: EventStream | undefined;

/** Opens the app's one event stream for the signed-in user (again after a new login). */
export function startLive(): void {
  stream?.stop();
  stream = new EventStream({
    token: session.token,
    onEvent: (e) => {
      for (const l of listeners) l(e);
    },
    onState: (s) => {
      liveState.value = s;
    },
    onResync: () => {
      for (const r of resyncs) r();
    },
    onSessionEnded: () => session.expire(),
  });
  stream.start();
}

export function stopLive(): void {
  stream?.stop();
  stream = undefined;
}

/**
 * Subscribes to live events of the given types (prefixes ending in "." match a family:
 * "task." is every task event). `onResync` runs after a reconnect, when events may have been
 * missed: reload what the screen shows. Returns the unsubscribe function (for useEffect).
 */
export function onLive(types: string[], handler: Listener, onResync?: () => void): () => void {
  const listener: Listener = (e) => {
    if (types.some((t) => (t.endsWith('.') ? e.type.startsWith(t) : e.type === t))) handler(e);
  };
  listeners.add(listener);
  if (onResync) resyncs.add(onResync);
  return () => {
    listeners.delete(listener);
    if (onResync) resyncs.delete(onResync);
  };
}
