import { createParser } from 'eventsource-parser';

/** One event of `/api/events`: its name (movement.created, task.assigned, ...) and JSON data. */
export interface StreamEvent {
  id: string | undefined;
  type: string;
  data: unknown;
}

export type StreamState = 'connecting' | 'open' | 'reconnecting' | 'ended';

export interface EventStreamOptions {
  url?: string;
  /** The bearer token for each (re)connect; undefined stops the stream. */
  token: () => string | undefined;
  onEvent: (event: StreamEvent) => void;
  onState?: (state: StreamState) => void;
  /**
   * After a reconnect: events may have been missed beyond what the server could replay, so screens
   * reload what they show. Called with `replayed: false` when the server said it could not replay.
   */
  onResync?: () => void;
  /** The server ended the stream because the credential no longer stands (logout, expiry). */
  onSessionEnded?: (reason: string) => void;
  fetch?: typeof fetch;
  /** Delay before reconnect attempt n (1, 2, ...): default 1 s doubling to 15 s, with jitter. */
  backoff?: (attempt: number) => number;
  setTimeout?: (fn: () => void, ms: number) => unknown;
}

export function defaultBackoff(attempt: number): number {
  const base = Math.min(15_000, 1000 * 2 ** (attempt - 1));
  return base / 2 + Math.random() * (base / 2);
}

/**
 * The live event stream over fetch (EventSource cannot send an Authorization header, and a token
 * in the URL would end up in logs). Reconnects with backoff and resumes with Last-Event-ID, so the
 * server replays what was missed; the SSE parsing itself is eventsource-parser's.
 */
export class EventStream {
  private lastEventId: string | undefined;
  private abort: AbortController | undefined;
  private attempt = 0;
  private stopped = false;
  private connectedOnce = false;
  private state: StreamState | undefined;

  constructor(private readonly options: EventStreamOptions) {}

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
    this.setState('ended');
  }

  /** Tells the listener about changes only (every retry of a down link is still "reconnecting"). */
  private setState(state: StreamState): void {
    if (state === this.state) return;
    this.state = state;
    this.options.onState?.(state);
  }

  private async connect(): Promise<void> {
    const token = this.options.token();
    if (this.stopped || !token) return;
    this.setState(this.connectedOnce ? 'reconnecting' : 'connecting');
    const abort = new AbortController();
    this.abort = abort;
    let ended = false;
    try {
      const headers: Record<string, string> = {
        Authorization: `Bearer ${token}`,
        Accept: 'text/event-stream',
      };
      if (this.lastEventId !== undefined) headers['Last-Event-ID'] = this.lastEventId;
      const res = await (this.options.fetch ?? fetch)(this.options.url ?? '/api/events', {
        headers,
        signal: abort.signal,
        cache: 'no-store',
      });
      if (res.status === 401) {
        this.stopped = true;
        this.options.onSessionEnded?.('unauthenticated');
        return;
      }
      if (!res.ok || !res.body) throw new Error(`event stream answered ${res.status}`);
      this.attempt = 0;
      const reconnect = this.connectedOnce;
      this.connectedOnce = true;
      this.setState('open');
      if (reconnect) this.options.onResync?.();
      const parser = createParser({
        onEvent: (message) => {
          if (message.id !== undefined) this.lastEventId = message.id;
          const type = message.event ?? 'message';
          let data: unknown = message.data;
          try {
            data = JSON.parse(message.data);
          } catch {
            // not JSON: hand the text over as it is
          }
          if (type === 'session.ended') {
            ended = true;
            this.stopped = true;
            const reason = (data as { data?: { reason?: string } })?.data?.reason ?? 'ended';
            this.options.onSessionEnded?.(reason);
            return;
          }
          if (type === 'stream.reset') {
            this.options.onResync?.();
            return;
          }
          this.options.onEvent({ id: message.id, type, data });
        },
      });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch {
      // a dropped link, an aborted fetch or a server error: reconnect below unless stopped
    }
    if (this.stopped || ended || abort.signal.aborted) return;
    this.attempt += 1;
    this.setState('reconnecting');
    const delay = (this.options.backoff ?? defaultBackoff)(this.attempt);
    (this.options.setTimeout ?? setTimeout)(() => void this.connect(), delay);
  }
}
