import type { SyncDeps } from './deps.js';
import type { SendStore } from './send-store.js';
import { chooseEncoding, encodeBatch } from './wire-encoding.js';

/**
 * What one peer's acks say it decodes (Ack.accept, wire-encoding.ts), and our batches encoded for
 * it. Unknown until the peer's first ack ever, so what goes before it (at most a window) is plain
 * JSON. Each ack says it again, so a peer replaced by an older version is followed at once. Kept in
 * sync_meta (`peer-accepts:<peer>`), so an edge restarted after a week offline sends its backlog
 * compressed from the first batch.
 */
export class PeerEncodings {
  private accepts: readonly string[] | undefined;

  constructor(
    private readonly o: {
      deps: Pick<SyncDeps, 'log' | 'config'>;
      store: Pick<SendStore, 'meta' | 'putMeta'>;
      peer: string;
    },
  ) {}

  /** Reads what the peer offered last time (before the first batch is sent). */
  async load(): Promise<void> {
    this.accepts = parseAccepts(await this.o.store.meta(this.key()));
  }

  /** An ack's `accept` (an older peer's ack has none: it takes JSON only). */
  learn(accepts: readonly string[] | undefined): void {
    const known = this.accepts;
    const now = accepts ?? [];
    this.accepts = now;
    if (known && known.join() === now.join()) return;
    this.o.store
      .putMeta(this.key(), JSON.stringify(now))
      .catch((err: Error) =>
        this.o.deps.log.warn({ peer: this.o.peer, err: err.message }, 'what the peer accepts not saved'),
      );
  }

  /** The batch as it goes on the wire to this peer (on the thread pool when compressed). */
  encode(json: string): Promise<string | Buffer> {
    return encodeBatch(json, chooseEncoding(this.accepts, this.o.deps.config.sync.compression));
  }

  private key(): string {
    return `peer-accepts:${this.o.peer}`;
  }
}

/** A stored `accept` list (our own writing, but a database is read defensively): undefined if unreadable. */
function parseAccepts(stored: string | undefined): readonly string[] | undefined {
  if (stored === undefined) return undefined;
  try {
    const list: unknown = JSON.parse(stored);
    return Array.isArray(list) && list.every((e) => typeof e === 'string') ? list : undefined;
  } catch {
    return undefined;
  }
}
