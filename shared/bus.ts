import { EventEmitter } from 'node:events';
import { type EventType, isLive, type PublishedEvent, type YardEvent } from './events.js';

export type { AnyYardEvent, EventType, PublishedEvent, YardEvent, YardEvents } from './events.js';

/**
 * In-process publish/subscribe over the typed event map (events.ts), with a short replay buffer of
 * live events so a reconnecting SSE client misses nothing. In-process events (sync.signed-out, ...)
 * reach subscribers but take no seq of their own and are not kept for replay.
 */
export class EventBus {
  private readonly emitter = new EventEmitter();
  private readonly recent: PublishedEvent[] = [];
  private seq = 0;

  constructor(private readonly replaySize = 1000) {
    this.emitter.setMaxListeners(0);
  }

  publish<K extends EventType>(event: YardEvent<K>): PublishedEvent<K> {
    const live = isLive(event.type);
    const published = {
      ...event,
      seq: live ? ++this.seq : this.seq,
      at: new Date().toISOString(),
    } as PublishedEvent<K> & PublishedEvent;
    if (live) {
      this.recent.push(published);
      if (this.recent.length > this.replaySize) this.recent.shift();
    }
    this.emitter.emit('event', published);
    return published;
  }

  /** Every event, live and in-process. */
  subscribe(listener: (event: PublishedEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  /** Events of one type, with their data typed. */
  on<K extends EventType>(type: K, listener: (event: PublishedEvent<K>) => void): () => void {
    return this.subscribe((event) => {
      if (event.type === type) listener(event as PublishedEvent<K>);
    });
  }

  /** Live events after `seq` still in the replay buffer. */
  since(seq: number): PublishedEvent[] {
    return this.recent.filter((e) => e.seq > seq);
  }
}
