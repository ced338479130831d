/**
 * Names for the ids a list shows (carrier, driver, trailer, truck): each id is asked for once per
 * screen, all the unknown ids of a page in one round of parallel requests, and kept. An id that
 * cannot be read (deleted, outside the user's yards) keeps a short form of the id.
 */
export type NameKind = 'carrier' | 'driver' | 'trailer' | 'truck' | 'user';

export type Fetcher = (kind: NameKind, id: string) => Promise<string>;

export class NameBook {
  private readonly known = new Map<string, string>();
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly fetch: Fetcher,
    /** Requests in flight at once, so a page of 50 rows does not open 150 connections. */
    private readonly concurrency = 6,
  ) {}

  /** The name if known, else undefined (call `resolve` first). */
  name(kind: NameKind, id: string | null | undefined): string | undefined {
    return id ? this.known.get(`${kind}:${id}`) : undefined;
  }

  /** A name learnt from elsewhere (a list already loaded). */
  remember(kind: NameKind, id: string, name: string): void {
    this.known.set(`${kind}:${id}`, name);
  }

  /** Fetches the names not yet known; resolves when all of them are in (failures included). */
  async resolve(wanted: Array<[NameKind, string | null | undefined]>): Promise<void> {
    const todo: Array<[NameKind, string]> = [];
    const waits: Promise<void>[] = [];
    for (const [kind, id] of wanted) {
      if (!id) continue;
      const key = `${kind}:${id}`;
      if (this.known.has(key)) continue;
      const inFlight = this.pending.get(key);
      if (inFlight) waits.push(inFlight);
      else if (!todo.some(([k, i]) => k === kind && i === id)) todo.push([kind, id]);
    }
    let next = 0;
    const worker = async () => {
      while (next < todo.length) {
        const [kind, id] = todo[next++]!;
        const key = `${kind}:${id}`;
        const job = this.fetch(kind, id).then(
          (name) => void this.known.set(key, name),
          () => void this.known.set(key, `${kind} ${id.slice(-6)}`),
        );
        this.pending.set(key, job);
        await job;
        this.pending.delete(key);
      }
    };
    const workers = Array.from({ length: Math.min(this.concurrency, todo.length) }, worker);
    await Promise.all([...workers, ...waits]);
  }
}
