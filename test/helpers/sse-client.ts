/** An `/api/events` client for tests: reads the stream with fetch and parses the events as they arrive. */
export interface SseEvent {
  id: string | undefined;
  event: string | undefined;
  data: any;
}

/** A live /api/events stream read with fetch, parsed into events as they arrive. */
export class EventStream {
  readonly events: SseEvent[] = [];
  status = 0;
  contentType = '';
  /** The server ended the stream. */
  ended = false;
  private connected = false;
  private readonly waiters = new Set<() => void>();
  private readonly abort = new AbortController();

  static async open(baseUrl: string, token: string | undefined, lastEventId?: string): Promise<EventStream> {
    const stream = new EventStream();
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    const res = await fetch(`${baseUrl}/api/events`, { headers, signal: stream.abort.signal });
    stream.status = res.status;
    stream.contentType = res.headers.get('content-type') ?? '';
    if (res.ok && res.body) {
      stream.pump(res.body).catch(() => {});
      await stream.until(() => stream.connected);
    }
    return stream;
  }

  /** Resolves once `predicate` holds for what has arrived; fails after `timeoutMs`. */
  until(predicate: () => boolean, timeoutMs = 3000): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out; received ${JSON.stringify(this.events.map((e) => e.event))}`));
      }, timeoutMs);
      const check = () => {
        if (!predicate()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  untilEvent(type: string): Promise<void> {
    return this.until(() => this.types().includes(type));
  }

  untilEnded(): Promise<void> {
    return this.until(() => this.ended);
  }

  types(): string[] {
    return this.events.map((e) => e.event ?? '');
  }

  close(): void {
    this.abort.abort();
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        this.accept(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
      }
      for (const check of [...this.waiters]) check();
    }
    this.ended = true;
    for (const check of [...this.waiters]) check();
  }

  private accept(block: string): void {
    const fields: Record<string, string> = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        if (line.includes('connected')) this.connected = true;
        continue;
      }
      const colon = line.indexOf(':');
      if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
    }
    if (fields.data === undefined) return;
    this.events.push({ id: fields.id, event: fields.event, data: JSON.parse(fields.data) });
  }
}
