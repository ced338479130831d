import { inflateSync } from 'node:zlib';
import type { SyncTransport } from '../../shared/sync/transport.js';
import { isZlibStream } from '../../shared/sync/wire-encoding.js';

/** One change batch this side tried to publish, and what the link did with it. */
export interface SentBatch {
  topic: string;
  from: number;
  to: number;
  fate: 'sent' | 'lost';
  /** How it went on the wire: compressed (wire-encoding.ts) or plain JSON. */
  encoding: 'deflate' | 'json';
}

/**
 * Test-only outermost layer of a node's transport (inside it: a FaultyTransport for inbound faults,
 * or the real MQTT transport). What FaultyTransport cannot do:
 * - lose this side's outbound messages by topic (`dropOut`), or rewrite them (`mangleOut`: a row
 *   lost on the way);
 * - `blackhole`: everything is lost both ways while the link still looks up (a half-open link:
 *   the broker and both programs believe it works, nothing arrives);
 * - `kill()`: the process is gone from this instant: nothing more leaves or arrives, the MQTT client
 *   is dropped without DISCONNECT (the caller also cuts its socket at the broker, so the will fires).
 * It records every change batch published (from, to, fate), so a test can see resends and ack timeouts.
 */
export class FaultLink implements SyncTransport {
  dropOut: string[] = [];
  mangleOut: ((topic: string, payload: string) => string | undefined) | undefined;
  blackhole = false;
  readonly batches: SentBatch[] = [];
  /** Inbound messages handed to the app, per topic suffix after the site id (down/changes, up/ack...). */
  readonly delivered = new Map<string, number>();
  /** Inbound commands (down/cmd) handed to the app, as received (a test can deliver one again). */
  readonly commands: Array<{ topic: string; payload: Buffer }> = [];
  /** Inbound messages lost to blackhole or kill. */
  lostIn = 0;
  private killed = false;
  /** Rejects the publishes still waiting for the broker: a dead process waits for nothing. */
  private readonly abandon = new Set<(err: Error) => void>();
  private readonly listeners: Array<(topic: string, payload: Buffer) => void> = [];

  constructor(private readonly inner: SyncTransport) {
    inner.onMessage((topic, payload) => this.inbound(topic, payload));
  }

  get connected(): boolean {
    return !this.killed && this.inner.connected;
  }
  get isKilled(): boolean {
    return this.killed;
  }

  start(): Promise<void> {
    return this.killed ? Promise.resolve() : this.inner.start();
  }
  stop(): Promise<void> {
    return this.inner.stop();
  }

  /** Synchronous: from this call on the node neither sends nor receives anything. */
  kill(): Promise<void> {
    this.killed = true;
    for (const reject of this.abandon) reject(new Error('process killed'));
    this.abandon.clear();
    return this.inner.stop();
  }

  async publish(topic: string, payload: string | Buffer, options: { qos: 0 | 1; retain?: boolean }) {
    if (this.killed) throw new Error('mqtt not connected (process killed)');
    // A compressed batch is read as its JSON (to record or mangle it) but goes on as it came,
    // unless mangled (then as plain JSON, which every receiver takes too).
    const compressed = typeof payload !== 'string' && isZlibStream(payload);
    let text = compressed ? inflateSync(payload).toString() : payload.toString();
    let out: string | Buffer = payload;
    const lost = this.blackhole || this.dropOut.some((suffix) => topic.endsWith(suffix));
    const mangled = !lost && this.mangleOut ? this.mangleOut(topic, text) : undefined;
    if (mangled !== undefined) {
      text = mangled;
      out = mangled;
    }
    if (topic.endsWith('/changes')) this.record(topic, text, lost, compressed && mangled === undefined);
    if (lost) {
      // Gone on the way: the publish itself looks fine to the sender.
      if (!this.inner.connected) throw new Error('mqtt not connected');
      return;
    }
    let abandon: (err: Error) => void = () => undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        abandon = reject;
        this.abandon.add(reject);
        this.inner.publish(topic, out, options).then(resolve, reject);
      });
    } finally {
      this.abandon.delete(abandon);
    }
  }

  onMessage(listener: (topic: string, payload: Buffer) => void): void {
    this.listeners.push(listener);
  }
  onConnect(listener: () => void): void {
    this.inner.onConnect(() => {
      if (!this.killed) listener();
    });
  }
  onDisconnect(listener: () => void): void {
    this.inner.onDisconnect(() => {
      if (!this.killed) listener();
    });
  }

  /** How many times a batch starting at `from` was published on a topic ending with `suffix`. */
  sendsOf(suffix: string, from: number): number {
    return this.batches.filter((b) => b.topic.endsWith(suffix) && b.from === from).length;
  }

  /** The most times any one batch (by its `from`) was published on topics ending with `suffix`. */
  mostResent(suffix: string): number {
    const counts = new Map<number, number>();
    for (const b of this.batches) {
      if (!b.topic.endsWith(suffix) || b.to < b.from) continue; // probes carry no rows
      counts.set(b.from, (counts.get(b.from) ?? 0) + 1);
    }
    return Math.max(0, ...counts.values());
  }

  private inbound(topic: string, payload: Buffer): void {
    if (this.killed || this.blackhole) {
      this.lostIn += 1;
      return;
    }
    const key = topic.split('/').slice(2).join('/');
    this.delivered.set(key, (this.delivered.get(key) ?? 0) + 1);
    if (key === 'down/cmd') this.commands.push({ topic, payload });
    for (const l of this.listeners) l(topic, payload);
  }

  private record(topic: string, text: string, lost: boolean, compressed: boolean): void {
    try {
      const { from, to } = JSON.parse(text) as { from: number; to: number };
      this.batches.push({
        topic,
        from,
        to,
        fate: lost ? 'lost' : 'sent',
        encoding: compressed ? 'deflate' : 'json',
      });
    } catch {
      // Not a batch: nothing to record.
    }
  }
}
