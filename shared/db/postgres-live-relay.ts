import { randomBytes } from 'node:crypto';
import type { EventBus, PublishedEvent } from '../bus.js';
import { isLive, type YardEvent } from '../events.js';
import type { Component } from '../lifecycle.js';
import type { Logger } from '../log.js';
import type { PostgresListener } from './postgres-listener.js';

/** The PostgreSQL channel the cloud's nodes tell each other their live events on. */
export const LIVE_CHANNEL = 'yard_live_events';

/**
 * NOTIFY carries at most 8000 bytes: an event's JSON goes in parts of this many characters (up to
 * four bytes each in UTF-8), with room left for the envelope.
 */
const PART_CHARS = 1500;

/** Parts of events not complete after this long are dropped (their sender's connection went). */
const PART_TTL_MS = 30_000;

interface Part {
  /** The sending node. */
  n: string;
  /** The event's number at its node. */
  i: number;
  /** This part's index, and how many there are. */
  p: number;
  c: number;
  d: string;
}

export interface LiveRelayDeps {
  /** The node's LISTEN/NOTIFY connection (postgres-listener.ts), started before this. */
  listener: PostgresListener;
  bus: EventBus;
  log: Logger;
  /** Characters of event JSON per NOTIFY (tests make it small to exercise the split). */
  partChars?: number;
}

/**
 * Live events across the cloud's nodes (docs/architecture.md "Two databases, and several cloud nodes"): a change made through one node reaches the SSE
 * clients of every node. Each node publishes its live events with NOTIFY and republishes the
 * others' on its own bus, where they take a seq of this node's stream (an SSE client's resume works
 * per node, as before). The node's one LISTEN/NOTIFY connection sends them, so a node's
 * notifications go out in order and the parts of an event arrive in order. Events are hints for
 * screens, not records: while the connection is down they are not relayed. In-process events are
 * never relayed.
 */
export class PostgresLiveRelay implements Component {
  readonly name = 'live events across nodes';
  /** This node, in the channel: notifications it sent itself come back and are skipped. */
  private readonly node = randomBytes(6).toString('hex');
  private readonly partChars: number;
  private unsubscribe: (() => void) | undefined;
  private sent = 0;
  /** True while republishing another node's event: the bus calls send() synchronously inside. */
  private republishing = false;
  private readonly pending = new Map<string, { parts: string[]; got: number; at: number }>();

  constructor(private readonly deps: LiveRelayDeps) {
    this.partChars = deps.partChars ?? PART_CHARS;
    deps.listener.on(LIVE_CHANNEL, (payload) => this.received(payload));
  }

  async start(): Promise<void> {
    this.unsubscribe ??= this.deps.bus.subscribe((event) => this.send(event));
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private send(event: PublishedEvent): void {
    if (!isLive(event.type) || this.republishing) return;
    if (!this.deps.listener.connected) return;
    // The event as published, but its seq and time, which are each node's own: yardId and driverId
    // go too (each node's stream filters by them).
    const { seq: _seq, at: _at, ...yardEvent } = event;
    const json = JSON.stringify(yardEvent);
    const count = Math.max(1, Math.ceil(json.length / this.partChars));
    const i = ++this.sent;
    for (let p = 0; p < count; p++) {
      const part: Part = {
        n: this.node,
        i,
        p,
        c: count,
        d: json.slice(p * this.partChars, (p + 1) * this.partChars),
      };
      this.deps.listener
        .notify(LIVE_CHANNEL, JSON.stringify(part))
        .catch((err) =>
          this.deps.log.warn({ err, type: event.type }, 'live event not relayed to the other nodes'),
        );
    }
  }

  private received(payload: string): void {
    let part: Part;
    try {
      part = JSON.parse(payload) as Part;
    } catch {
      return;
    }
    if (part.n === this.node) return;
    const json = this.assemble(part);
    if (json === undefined) return;
    let event: YardEvent;
    try {
      event = JSON.parse(json);
    } catch {
      return;
    }
    if (typeof event.type !== 'string' || !isLive(event.type)) return;
    this.republishing = true;
    try {
      this.deps.bus.publish(event);
    } finally {
      this.republishing = false;
    }
  }

  /** The whole event once its last part is in; undefined while parts are missing. */
  private assemble(part: Part): string | undefined {
    if (part.c === 1) return part.d;
    const key = `${part.n}:${part.i}`;
    const now = Date.now();
    for (const [k, v] of this.pending) if (now - v.at > PART_TTL_MS) this.pending.delete(k);
    const entry = this.pending.get(key) ?? { parts: new Array<string>(part.c), got: 0, at: now };
    if (entry.parts[part.p] === undefined) entry.got++;
    entry.parts[part.p] = part.d;
    this.pending.set(key, entry);
    if (entry.got < part.c) return undefined;
    this.pending.delete(key);
    return entry.parts.join('');
  }
}
