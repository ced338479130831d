import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { type EventType, isLive, type PublishedEvent, type YardEvent } from './events.js';

export type { AnyYardEvent, EventType, PublishedEvent, YardEvent, YardEvents } from './events.js';

/** Why a Last-Event-ID cannot be resumed: the client must reload what it shows. */
export type ResumeRefusal = 'restarted' | 'expired' | 'unknown';

/**
 * What a Last-Event-ID allows: the live events after it, or a refusal when events may have been
 * missed that the buffer no longer holds (then `at` is the id to resume from after reloading).
 */
export type Resume = { events: PublishedEvent[] } | { refused: ResumeRefusal; at: string };

/**
 * In-process publish/subscribe over the typed event map (events.ts), with a short replay buffer of
 * live events so a reconnecting SSE client misses nothing. In-process events (sync.signed-out, ...)
 * reach subscribers but take no seq of their own and are not kept for replay.
 *
 * The SSE id of an event is `<boot>-<seq>`: seqs start again at 1 in each process, so the boot id
 * (random, per EventBus) tells an id of an earlier process from one of this process.
 */
export class EventBus {
  private readonly emitter = new EventEmitter();
  private readonly recent: PublishedEvent[] = [];
  private seq = 0;
  /** This process's stream: no '-' in it, so an id splits at its last '-'. */
  readonly boot = randomBytes(6).toString('hex');

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

  /** The SSE id of a live event of this process (of the last one when no seq is given). */
  idOf(seq: number = this.seq): string {
    return `${this.boot}-${seq}`;
  }

  /**
   * The events a client that saw `lastEventId` missed, when every one of them is still here. An id
   * of another process (including a bare number, from before ids named their boot), one older than
   * the oldest kept event, or one ahead of the last event is refused: replaying what is left would
   * silently skip events.
   */
  resume(lastEventId: string): Resume {
    const refuse = (refused: ResumeRefusal): Resume => ({ refused, at: this.idOf() });
    const dash = lastEventId.lastIndexOf('-');
    if (dash < 0) return refuse(/^\d+$/.test(lastEventId) ? 'restarted' : 'unknown');
    const boot = lastEventId.slice(0, dash);
    const text = lastEventId.slice(dash + 1);
    const seq = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
    if (boot !== this.boot)
      return refuse(/^[0-9a-f]+$/.test(boot) && !Number.isNaN(seq) ? 'restarted' : 'unknown');
    if (Number.isNaN(seq) || seq > this.seq) return refuse('unknown');
    const oldest = this.recent[0]?.seq ?? this.seq + 1;
    // Contiguous seqs: every event after `seq` is here when the first of them (seq + 1) still is.
    if (seq + 1 < oldest) return refuse('expired');
    return { events: this.since(seq) };
  }
}
