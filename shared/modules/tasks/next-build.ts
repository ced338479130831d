interface Slot<T> {
  /** The build under way. */
  running?: Promise<T> | undefined;
  /** The build that starts when it ends, shared by every request that arrived meanwhile. */
  next?: Promise<T> | undefined;
}

/**
 * Requests for the same figures share builds without ever being answered from before they were
 * made: a request arriving while no build of its key is under way starts one; one arriving while a
 * build is under way waits for the next build, which starts when that one ends and is shared by all
 * that arrived meanwhile. Each answer was therefore read after its request arrived (a write the
 * client saw committed is in it: no change signal or age limit needed), and however many clients
 * poll at once, one build runs per key at a time and a request waits at most for two. For the task
 * summaries, built in the one read worker of a SQLite cloud: ten dashboards polling at once cost a
 * build or two, not ten in a queue (docs/performance.md).
 */
export class NextBuild<T> {
  private readonly slots = new Map<string, Slot<T>>();

  /** The answer for `key` (it must name everything the answer depends on: the scope too). */
  get(key: string, build: () => Promise<T>): Promise<T> {
    let slot = this.slots.get(key);
    if (!slot) {
      slot = {};
      this.slots.set(key, slot);
    }
    const { running } = slot;
    if (!running) return this.start(key, slot, build);
    const s = slot;
    s.next ??= running.then(
      () => this.startNext(key, s, build),
      () => this.startNext(key, s, build),
    );
    return s.next;
  }

  private startNext(key: string, slot: Slot<T>, build: () => Promise<T>): Promise<T> {
    slot.next = undefined;
    return this.start(key, slot, build);
  }

  private start(key: string, slot: Slot<T>, build: () => Promise<T>): Promise<T> {
    const running = Promise.resolve().then(build);
    slot.running = running;
    const done = () => {
      if (slot.running === running) slot.running = undefined;
      if (!slot.running && !slot.next && this.slots.get(key) === slot) this.slots.delete(key);
    };
    running.then(done, done);
    return running;
  }
}
