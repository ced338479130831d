import type { SyncTransport } from '../../shared/sync/transport.js';

export interface Faults {
  /** Deliver every inbound message twice. */
  duplicate?: boolean;
  /**
   * Hold inbound messages and release them in a shuffled order: up to this many are held at a
   * time, each for at most `holdMs`.
   */
  reorder?: number;
  holdMs?: number;
  /** Drop inbound messages whose topic ends with one of these (until `faults.drop` is cleared). */
  drop?: string[];
  /** Deterministic shuffling. */
  seed?: number;
}

/**
 * Test-only wrapper around a real transport that misbehaves the way MQTT may (docs/sync.md "Principles"):
 * duplicated, reordered and lost inbound messages. Outbound messages pass unchanged (the peer's
 * FaultyTransport, if any, mangles them on its side). Counts what it did, so a test can check the
 * faults really happened.
 */
export class FaultyTransport implements SyncTransport {
  private readonly listeners: Array<(topic: string, payload: Buffer) => void> = [];
  private held: Array<{ topic: string; payload: Buffer; n: number }> = [];
  private timer: NodeJS.Timeout | undefined;
  private random: () => number;
  readonly counts = { delivered: 0, duplicated: 0, reordered: 0, dropped: 0 };

  constructor(
    private readonly inner: SyncTransport,
    public faults: Faults,
  ) {
    this.random = mulberry32(faults.seed ?? 1);
    inner.onMessage((topic, payload) => this.inbound(topic, payload));
  }

  get connected(): boolean {
    return this.inner.connected;
  }
  start(): Promise<void> {
    return this.inner.start();
  }
  /** What is held back is lost with the connection, as a broker's in-flight messages would be. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.counts.dropped += this.held.length;
    this.held = [];
    await this.inner.stop();
  }
  publish(topic: string, payload: string | Buffer, options: { qos: 0 | 1; retain?: boolean }): Promise<void> {
    return this.inner.publish(topic, payload, options);
  }
  onMessage(listener: (topic: string, payload: Buffer) => void): void {
    this.listeners.push(listener);
  }
  onConnect(listener: () => void): void {
    this.inner.onConnect(listener);
  }
  onDisconnect(listener: () => void): void {
    this.inner.onDisconnect(listener);
  }

  private inbound(topic: string, payload: Buffer): void {
    if (this.faults.drop?.some((suffix) => topic.endsWith(suffix))) {
      this.counts.dropped += 1;
      return;
    }
    const copies = this.faults.duplicate ? 2 : 1;
    if (copies === 2) this.counts.duplicated += 1;
    for (let i = 0; i < copies; i++) {
      if (this.faults.reorder && this.faults.reorder > 1) this.hold(topic, payload);
      else this.deliver(topic, payload);
    }
  }

  private hold(topic: string, payload: Buffer): void {
    this.held.push({ topic, payload, n: this.held.length });
    if (this.held.length >= (this.faults.reorder ?? 1)) {
      this.flush();
      return;
    }
    this.timer ??= setTimeout(() => this.flush(), this.faults.holdMs ?? 30);
  }

  /** Releases everything held, shuffled. */
  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.held;
    this.held = [];
    for (let i = batch.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [batch[i], batch[j]] = [batch[j]!, batch[i]!];
    }
    for (let i = 0; i < batch.length; i++) {
      const m = batch[i]!;
      if (m.n !== i) this.counts.reordered += 1;
      this.deliver(m.topic, m.payload);
    }
  }

  private deliver(topic: string, payload: Buffer): void {
    this.counts.delivered += 1;
    for (const l of this.listeners) l(topic, payload);
  }
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
