import { EventEmitter } from 'node:events';

/**
 * An event that happened in the yard, for live updates (SSE) and in-process reactions.
 * `yardId` and `driverId` let the SSE stream filter what each principal may see.
 */
export interface YardEvent {
  type: string;
  yardId?: string | null;
  driverId?: string | null;
  data: unknown;
}

export interface PublishedEvent extends YardEvent {
  seq: number;
  at: string;
}

/** In-process publish/subscribe with a short replay buffer so a reconnecting SSE client misses nothing. */
export class EventBus {
  private readonly emitter = new EventEmitter();
  private readonly recent: PublishedEvent[] = [];
  private seq = 0;

  constructor(private readonly replaySize = 1000) {
    this.emitter.setMaxListeners(0);
  }

  publish(event: YardEvent): PublishedEvent {
    const published: PublishedEvent = { ...event, seq: ++this.seq, at: new Date().toISOString() };
    this.recent.push(published);
    if (this.recent.length > this.replaySize) this.recent.shift();
    this.emitter.emit('event', published);
    return published;
  }

  subscribe(listener: (event: PublishedEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  /** Events after `seq` still in the replay buffer. */
  since(seq: number): PublishedEvent[] {
    return this.recent.filter((e) => e.seq > seq);
  }
}
