import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './ports.js';

/**
 * A loopback TCP proxy that behaves like a slow, distant link (docs/performance.md, "On the wire": 10 Mbit/s each way and
 * 80 ms round trip), for tests and benchmarks, with no root and no `tc`:
 *
 *   client ──▶ [ token bucket at upBitsPerSecond ] ──▶ [ latencyMs ] ──▶ target      (up)
 *   client ◀── [ latencyMs ] ◀── [ token bucket at downBitsPerSecond ] ◀── target      (down)
 *
 * Each direction is a bottleneck queue drained by a token bucket (the link's bandwidth), then a
 * propagation delay: a piece of data leaves the bucket at time T and reaches the other end at
 * T + latencyMs, in the order it was sent. `latencyMs` is ONE WAY: a round trip over the link adds
 * twice it, so "80 ms of latency" as ping shows it on an LTE uplink is `latencyMs: 40`.
 *
 * The proxy holds at most `bufferBytes` per direction (queued plus in flight) and pauses the sender
 * beyond that, as a router's queue and TCP's windows would; the kernel's socket buffers on loopback
 * hold more before the sender's writes block. Bytes are counted as they reach the proxy (what each
 * side put on the link), over every connection made through it.
 */
export interface ShapedLinkOptions {
  /** Where the proxy connects each accepted connection to (host default 127.0.0.1). */
  target: { host?: string; port: number };
  /** Bandwidth client -> target in bits per second (default: unlimited). */
  upBitsPerSecond?: number;
  /** Bandwidth target -> client in bits per second (default: unlimited). */
  downBitsPerSecond?: number;
  /** Added one-way delay in milliseconds, each direction (default 0). */
  latencyMs?: number;
  /**
   * The bucket's depth: how many bytes may leave at once after a quiet spell (default: 20 ms of the
   * rate, between one 1,500-byte packet and 16 KiB). Larger pieces are sent in parts of this size.
   */
  burstBytes?: number;
  /** Bytes held per direction before the sender is paused (default 1 MiB). */
  bufferBytes?: number;
}

export interface ShapedLink {
  readonly port: number;
  /** mqtt://127.0.0.1:<port>, for an MQTT client going through the link. */
  readonly url: string;
  /** Bytes each way so far, over all connections (live counters). */
  readonly bytes: { readonly up: number; readonly down: number };
  /** Connections accepted so far. */
  readonly connections: number;
  /** Stops listening and drops every open connection. */
  close(): Promise<void>;
}

const MTU = 1_500;
const MAX_BURST = 16 * 1024;

export async function shapedLink(options: ShapedLinkOptions): Promise<ShapedLink> {
  const link = new Link(options);
  await link.listen(await freePort());
  return link;
}

class Link implements ShapedLink {
  port = 0;
  connections = 0;
  readonly bytes = { up: 0, down: 0 };
  private server: Server | undefined;
  private readonly lanes = new Set<Lane>();
  private readonly sockets = new Set<Socket>();

  constructor(private readonly options: ShapedLinkOptions) {
    for (const [name, value] of Object.entries(options)) {
      if (typeof value === 'number' && !(value >= 0)) throw new Error(`shapedLink: ${name} must be >= 0`);
    }
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  async listen(port: number): Promise<void> {
    const server = createServer({ allowHalfOpen: true }, (client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    this.server = server;
    this.port = port;
  }

  async close(): Promise<void> {
    for (const lane of this.lanes) lane.stop();
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  private accept(client: Socket): void {
    this.connections++;
    const o = this.options;
    const upstream = createConnection({
      host: o.target.host ?? '127.0.0.1',
      port: o.target.port,
      allowHalfOpen: true,
    });
    const shape = (bitsPerSecond: number | undefined) => {
      const bytesPerSecond = bitsPerSecond === undefined ? Infinity : bitsPerSecond / 8;
      return {
        bytesPerSecond,
        latencyMs: o.latencyMs ?? 0,
        burstBytes: o.burstBytes ?? Math.min(MAX_BURST, Math.max(MTU, Math.floor(bytesPerSecond / 50))),
        bufferBytes: o.bufferBytes ?? 1024 * 1024,
      };
    };
    const up = new Lane(client, upstream, shape(o.upBitsPerSecond), (n) => {
      this.bytes.up += n;
    });
    const down = new Lane(upstream, client, shape(o.downBitsPerSecond), (n) => {
      this.bytes.down += n;
    });
    this.lanes.add(up).add(down);
    const ends = [
      { socket: client, other: upstream, from: up, to: down },
      { socket: upstream, other: client, from: down, to: up },
    ];
    for (const { socket, other, from, to } of ends) {
      this.sockets.add(socket);
      socket.setNoDelay(true);
      socket.on('error', () => undefined); // 'close' follows
      socket.on('close', (hadError) => {
        this.sockets.delete(socket);
        // Nothing more can reach this end.
        to.stop();
        this.lanes.delete(to);
        // Closed in order (it sent its FIN, and we ours): what it sent is still on its way and
        // arrives, then the other end is closed. Reset or gone without a FIN: so is the connection.
        if (hadError || !from.sourceEnded) {
          from.stop();
          this.lanes.delete(from);
          other.destroy();
        }
      });
    }
  }
}

interface LaneShape {
  bytesPerSecond: number;
  latencyMs: number;
  burstBytes: number;
  bufferBytes: number;
}

/** One direction of one connection: source -> token bucket -> delay -> sink. */
class Lane {
  /** Waiting for tokens, oldest first. */
  private readonly queue: Buffer[] = [];
  /** Through the bucket, on their way: delivered at `dueAt`, oldest first. */
  private readonly inFlight: Array<{ piece: Buffer; dueAt: number }> = [];
  private held = 0;
  private tokens: number;
  private refilledAt = performance.now();
  private bucketTimer: NodeJS.Timeout | undefined;
  private deliverTimer: NodeJS.Timeout | undefined;
  sourceEnded = false;
  private sinkEnded = false;
  private sinkBlocked = false;
  private stopped = false;

  constructor(
    private readonly source: Socket,
    private readonly sink: Socket,
    private readonly shape: LaneShape,
    count: (bytes: number) => void,
  ) {
    this.tokens = shape.burstBytes;
    source.on('data', (chunk: Buffer) => {
      count(chunk.length);
      if (this.stopped) return; // its receiver is gone
      this.held += chunk.length;
      this.queue.push(chunk);
      this.flow();
      this.pump();
    });
    source.on('end', () => {
      this.sourceEnded = true;
      this.deliver();
    });
    sink.on('drain', () => {
      this.sinkBlocked = false;
      this.flow();
    });
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.bucketTimer);
    clearTimeout(this.deliverTimer);
    this.queue.length = 0;
    this.inFlight.length = 0;
  }

  /** Pauses the sender while this lane holds too much or the receiver is not reading. */
  private flow(): void {
    if (this.stopped) return;
    if (this.held > this.shape.bufferBytes || this.sinkBlocked) this.source.pause();
    else this.source.resume();
  }

  /** Lets queued data through the bucket as its tokens allow. */
  private pump(): void {
    if (this.stopped || this.bucketTimer) return;
    const { bytesPerSecond, burstBytes } = this.shape;
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      if (bytesPerSecond === Infinity) {
        this.queue.shift();
        this.propagate(head);
        continue;
      }
      const now = performance.now();
      this.tokens = Math.min(burstBytes, this.tokens + ((now - this.refilledAt) / 1000) * bytesPerSecond);
      this.refilledAt = now;
      const size = Math.min(head.length, burstBytes);
      if (this.tokens < size) {
        const waitMs = ((size - this.tokens) / bytesPerSecond) * 1000;
        this.bucketTimer = setTimeout(() => {
          this.bucketTimer = undefined;
          this.pump();
        }, Math.ceil(waitMs));
        return;
      }
      this.tokens -= size;
      if (size === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(size);
      this.propagate(head.subarray(0, size));
    }
  }

  private propagate(piece: Buffer): void {
    this.inFlight.push({ piece, dueAt: performance.now() + this.shape.latencyMs });
    this.deliver();
  }

  /** Hands the pieces whose delay is over to the receiver, in order. */
  private deliver(): void {
    if (this.stopped || this.deliverTimer) return;
    while (this.inFlight.length > 0) {
      const { piece, dueAt } = this.inFlight[0]!;
      const waitMs = dueAt - performance.now();
      if (waitMs > 0) {
        this.deliverTimer = setTimeout(() => {
          this.deliverTimer = undefined;
          this.deliver();
        }, Math.ceil(waitMs));
        return;
      }
      this.inFlight.shift();
      this.held -= piece.length;
      if (!this.sink.destroyed && !this.sink.write(piece)) this.sinkBlocked = true;
    }
    this.flow();
    // The sender closed its side and everything it sent has arrived: pass the close on.
    if (this.sourceEnded && this.queue.length === 0 && !this.sinkEnded) {
      this.sinkEnded = true;
      this.sink.end();
    }
  }
}
